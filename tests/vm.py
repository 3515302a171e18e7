"""A throwaway virtual machine on cgroup v2 alone, over this host's own root.

This machine, like CI's, mounts the memory, pids and cpu controllers on cgroup v1; most hosts
users run on are cgroup v2. `boot` starts Debian's own kernel (the one `linux-image-amd64`
depends on, fetched with `apt-get download` and cached in $XDG_CACHE_HOME/evaluator/vm) under
qemu with `cgroup_no_v1=all`, from a small initramfs (a static busybox and the virtio, 9p and
overlay modules) that mounts the host's root read-only over 9p, a cgroup2 hierarchy holding
every controller, and an overlay with a tmpfs upper on each folder the guest writes. It then
switches to that root (a root of its own, not a chroot: the kernel refuses a user namespace to
a chrooted process) and runs one shell command there as root, on the checkout and venv as they
are here.

qemu runs under TCG (software) unless asked for KVM: nested KVM hung at boot on these
machines, and TCG boots the kernel in about 3 s. Needs root and Debian's qemu-system-x86,
busybox-static, cpio and kmod (.ci/docker-up --tests installs them).
"""

from __future__ import annotations

import base64
import gzip
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

# The virtio transport, 9p over it, overlayfs (the sandboxes' workdirs), and a virtio disk
# with ext4 (a file system that keeps user.* xattrs, which tmpfs does only since Linux 6.6;
# its metadata checksums need crc32c, which modinfo does not list);
# what each depends on is found with modinfo and loaded before it.
_MODULES = ("virtio_pci", "9pnet_virtio", "9p", "overlay", "virtio_blk", "crc32c_generic", "ext4")
TOOLS = ("qemu-system-x86_64", "busybox", "cpio", "modinfo", "apt-get", "dpkg-deb", "mkfs.ext4")

_INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod /mods/$m || echo "insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose host /host \
  || { echo "VM-INIT no 9p root"; poweroff -f; }
for d in proc sys dev; do mount --rbind /$d /host/$d; done
mount -t cgroup2 none /host/sys/fs/cgroup
echo "+memory +pids +cpu" > /host/sys/fs/cgroup/cgroup.subtree_control
# Each writable folder an overlay: the host's files (a checkout under /tmp, say) shown, and
# what the guest writes kept in a tmpfs.
i=0
for d in $(cat /writable); do
  i=$((i + 1)); mkdir -p /over/$i; mount -t tmpfs tmpfs /over/$i; mkdir /over/$i/up /over/$i/work
  chmod "$(stat -c %a /host$d)" /over/$i/up  # the merged folder's mode is its upper's: /tmp's 1777
  mount -t overlay overlay -o lowerdir=/host$d,upperdir=/over/$i/up,workdir=/over/$i/work /host$d
done
cmd=$(sed -n 's/.*vmcommand=\([^ ]*\).*/\1/p' /proc/cmdline | base64 -d)
end='echo "VM-INIT exit $?"; echo o > /proc/sysrq-trigger; sleep 30'
exec switch_root /host /bin/sh -c "$cmd; $end"
"""


def missing() -> str:
    """What this machine lacks to boot the guest, or ""."""
    if os.geteuid() != 0:
        return "booting the cgroup v2 guest needs root"
    absent = [t for t in TOOLS if shutil.which(t) is None]
    if absent:
        return (f"{', '.join(absent)} missing (.ci/docker-up --tests installs qemu-system-x86, "
                "busybox-static, cpio and kmod)")
    if subprocess.run(["ldd", str(shutil.which("busybox"))], capture_output=True).returncode == 0:
        return "busybox is linked dynamically: apt-get install busybox-static"
    return ""


def _run(argv: list[str], **kw: object) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw).stdout  # type: ignore[call-overload,no-any-return]


def kernel(cache: Path | None = None) -> tuple[Path, Path]:
    """(vmlinuz, its modules' folder) of the kernel Debian's `linux-image-amd64` depends on."""
    cache = cache or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / \
        "evaluator" / "vm"
    depends = _run(["apt-cache", "depends", "linux-image-amd64"])
    package = next(line.split()[-1] for line in depends.splitlines()
                   if line.strip().startswith("Depends:") and "linux-image-" in line)
    root = cache / package
    if not (root / "boot").is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            got = subprocess.run(["apt-get", "download", package], cwd=tmp, capture_output=True,
                                 text=True)
            if got.returncode != 0:
                raise RuntimeError(f"apt-get download {package} failed (run apt-get update?): "
                                   f"{got.stderr[-1000:]}")
            (deb,) = Path(tmp).glob("*.deb")
            unpacked = Path(tmp) / "unpacked"
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
            root.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(root, ignore_errors=True)
            shutil.move(str(unpacked), root)
    (vmlinuz,) = (root / "boot").glob("vmlinuz-*")
    (modules,) = (root / "lib" / "modules").iterdir()
    return vmlinuz, modules


def _ordered(modules: Path) -> list[Path]:
    """The modules to load, each after what it depends on."""
    files = {p.name.removesuffix(".ko"): p for p in modules.rglob("*.ko")}
    order: list[Path] = []

    def visit(name: str) -> None:
        path = files[name]
        if path in order:
            return
        for dep in filter(None, _run(["modinfo", "-F", "depends", str(path)]).strip().split(",")):
            visit(dep)
        order.append(path)

    for name in _MODULES:
        visit(name)
    return order


def initramfs(dest: Path, modules: Path, writable: list[str]) -> Path:
    """The guest's initramfs, written under `dest`; `writable`: folders it covers with tmpfs."""
    root = dest / "initramfs"
    for d in ("bin", "mods", "proc", "sys", "dev", "host"):
        (root / d).mkdir(parents=True, exist_ok=True)
    shutil.copy(str(shutil.which("busybox")), root / "bin" / "busybox")
    order = _ordered(modules)
    for path in order:
        shutil.copy(path, root / "mods" / path.name)
    (root / "mods" / "order").write_text("\n".join(p.name for p in order) + "\n")
    (root / "writable").write_text("\n".join(writable) + "\n")
    (root / "init").write_text(_INIT)
    (root / "init").chmod(0o755)
    names = subprocess.run(["find", "."], cwd=root, check=True, capture_output=True).stdout
    archive = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=names,
                             check=True, capture_output=True).stdout
    out = dest / "initrd.gz"
    out.write_bytes(gzip.compress(archive, 1))
    return out


def boot(command: str, work: Path, *, writable: tuple[str, ...] = ("/tmp", "/run"),
         disk_mb: int = 0, kvm: bool = False, memory_mb: int = 2048,
         timeout_s: float = 900) -> str:
    """Run `command` (sh) as root in a cgroup v2 guest over this host's root; the console's
    text. `work` holds the initramfs (and the disk); the guest sees it (read-only, or through
    an overlay where it lies in `writable`). `disk_mb`: an empty ext4 disk of that size, the
    guest's /dev/vda."""
    vmlinuz, modules = kernel()
    initrd = initramfs(work, modules, list(writable))
    accel = ["-enable-kvm"] if kvm else ["-accel", "tcg,thread=multi"]
    drives: list[str] = []
    if disk_mb:
        disk = work / "disk.img"
        with disk.open("wb") as f:
            f.truncate(disk_mb << 20)  # sparse: only what the guest writes takes room
        subprocess.run(["mkfs.ext4", "-q", "-F", str(disk)], check=True, capture_output=True)
        drives = ["-drive", f"file={disk},if=virtio,format=raw"]
    argv = ["qemu-system-x86_64", *accel, *drives, "-m", str(memory_mb), "-smp", "2", "-nographic",
            "-no-reboot", "-kernel", str(vmlinuz), "-initrd", str(initrd), "-append",
            "console=ttyS0 quiet panic=-1 cgroup_no_v1=all vmcommand="
            + base64.b64encode(command.encode()).decode(),
            "-virtfs", "local,path=/,mount_tag=host,security_model=passthrough,readonly=on,"
            "multidevs=remap"]
    out = subprocess.run(argv, capture_output=True, timeout=timeout_s)
    return out.stdout.decode(errors="replace")
