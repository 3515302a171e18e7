"""The system calls a sandbox may make: Docker's default seccomp profile for a container with no
capabilities, written down once, for the backends whose engine does not apply it.

Docker applies its own default to every container; podman's default is looser (it allows
`unshare`, `setns`, `mount`, `keyctl` and `clone` with any namespace flag, so nested user
namespaces open inside its containers), and bubblewrap applies none. So podman gets this policy
as a profile file (`profile_file`), and the daemonless backend as the compiled BPF program
bubblewrap installs before the command runs (`bpf`).

The policy, as Docker's: anything not allowed fails with EPERM; `clone` only without a namespace
flag; `clone3` fails with ENOSYS (its flags sit in memory a filter cannot read, and ENOSYS sends
libc back to `clone`); `personality` only for the handful of values Docker lets through;
`socket` in every family but AF_VSOCK (the host's hypervisor channel); no `io_uring_*` (work
submitted through a ring passes no filter; Docker 25 and containerd 2 dropped them); nothing
that needs a capability (mount, namespaces, modules, clocks, keyrings, bpf, perf, ptrace of
processes one may not trace anyway). A system call newer than this host's libseccomp knows fails
with ENOSYS, as runc does for Docker, so a new libc falls back to the call it replaces.

The BPF comes from libseccomp (`libseccomp.so.2`) through ctypes: the library runc, crun and
systemd compile their filters with, on every Debian and Ubuntu host (apt depends on it), with
the system call tables of every architecture. `python3-seccomp` would be the same library bound
for the system's Python only; writing the BPF here would need those tables too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import hashlib
import json
import os
import platform
import threading
from pathlib import Path

from evaluator.errors import InfraError
from evaluator.settings import cache_home

# What Docker's default allows every container, by area (names a kernel or arch lacks are
# skipped when the filter is built).
_FILES = (
    "access", "chdir", "chmod", "chown", "chown32", "close", "close_range", "copy_file_range",
    "creat", "dup", "dup2", "dup3", "faccessat", "faccessat2", "fadvise64", "fadvise64_64",
    "fallocate", "fanotify_mark", "fchdir", "fchmod", "fchmodat", "fchown", "fchown32",
    "fchownat", "fcntl", "fcntl64", "fdatasync", "fgetxattr", "flistxattr", "flock",
    "fremovexattr", "fsetxattr", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync",
    "ftruncate", "ftruncate64", "futimesat", "getcwd", "getdents", "getdents64", "getxattr",
    "inotify_add_watch", "inotify_init", "inotify_init1", "inotify_rm_watch", "lchown",
    "lchown32", "lgetxattr", "link", "linkat", "listxattr", "llistxattr", "_llseek",
    "lremovexattr", "lseek", "lsetxattr", "lstat", "lstat64", "mkdir", "mkdirat", "mknod",
    "mknodat", "newfstatat", "open", "openat", "openat2", "pread64", "preadv", "preadv2",
    "pwrite64", "pwritev", "pwritev2", "read", "readahead", "readlink", "readlinkat", "readv",
    "removexattr", "rename", "renameat", "renameat2", "rmdir", "sendfile", "sendfile64",
    "setxattr", "splice", "stat", "stat64", "statfs", "statfs64", "statx", "symlink",
    "symlinkat", "sync", "sync_file_range", "syncfs", "tee", "truncate", "truncate64", "umask",
    "unlink", "unlinkat", "utime", "utimensat", "utimensat_time64", "utimes", "vmsplice",
    "write", "writev", "io_cancel", "io_destroy", "io_getevents", "io_pgetevents",
    "io_pgetevents_time64", "io_setup", "io_submit", "ioctl", "ioprio_get", "ioprio_set",
)
_MEMORY = (
    "brk", "madvise", "membarrier", "memfd_create", "memfd_secret", "mincore", "mlock", "mlock2",
    "mlockall", "mmap", "mmap2", "mprotect", "mremap", "msync", "munlock", "munlockall",
    "munmap", "pkey_alloc", "pkey_free", "pkey_mprotect", "remap_file_pages",
)
_PROCESSES = (
    "capget", "capset", "execve", "execveat", "exit", "exit_group", "fork", "vfork", "getcpu",
    "getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32", "getgroups",
    "getgroups32", "getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getresgid",
    "getresgid32", "getresuid", "getresuid32", "getrlimit", "get_robust_list", "getrusage",
    "getsid", "get_thread_area", "gettid", "getuid", "getuid32", "kill", "pidfd_open",
    "pidfd_send_signal", "prctl", "prlimit64", "process_mrelease", "ptrace",
    "process_vm_readv", "process_vm_writev", "rseq", "sched_getaffinity", "sched_getattr",
    "sched_getparam", "sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler",
    "sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity",
    "sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp",
    "setfsgid", "setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups",
    "setgroups32", "setpgid", "setpriority", "setregid", "setregid32", "setresgid",
    "setresgid32", "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit",
    "set_robust_list", "setsid", "set_thread_area", "set_tid_address", "setuid", "setuid32",
    "tgkill", "tkill", "ugetrlimit", "uname", "wait4", "waitid", "waitpid", "sysinfo", "times",
    "landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self",
)
_SIGNALS_AND_TIME = (
    "alarm", "clock_adjtime", "clock_adjtime64", "clock_getres", "clock_getres_time64",
    "clock_gettime", "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "adjtimex",
    "eventfd", "eventfd2", "futex", "futex_time64", "futex_waitv", "getitimer", "gettimeofday",
    "nanosleep", "pause", "restart_syscall", "rt_sigaction", "rt_sigpending", "rt_sigprocmask",
    "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
    "rt_sigtimedwait_time64", "rt_tgsigqueueinfo", "setitimer", "sigaltstack", "signalfd",
    "signalfd4", "sigprocmask", "sigreturn", "time", "timer_create", "timer_delete",
    "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64",
    "timerfd_create", "timerfd_gettime", "timerfd_gettime64", "timerfd_settime",
    "timerfd_settime64", "getrandom",
)
_IO_WAIT_AND_IPC = (
    "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait", "epoll_pwait2",
    "epoll_wait", "epoll_wait_old", "poll", "ppoll", "ppoll_time64", "pselect6",
    "pselect6_time64", "select", "_newselect", "pipe", "pipe2", "ipc", "mq_getsetattr",
    "mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64", "mq_timedsend",
    "mq_timedsend_time64", "mq_unlink", "msgctl", "msgget", "msgrcv", "msgsnd", "semctl",
    "semget", "semop", "semtimedop", "semtimedop_time64", "shmat", "shmctl", "shmdt", "shmget",
)
_NETWORK = (
    "accept", "accept4", "bind", "connect", "getpeername", "getsockname", "getsockopt",
    "listen", "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg", "send", "sendmmsg",
    "sendmsg", "sendto", "setsockopt", "shutdown", "socketcall", "socketpair",
)
# Newer numbers for operations allowed above (where this host's libseccomp knows them; where it
# does not, they fail with ENOSYS like every call it does not know).
_RENUMBERED = (
    "fchmodat2", "futex_wake", "futex_wait", "futex_requeue", "cachestat", "map_shadow_stack",
    "mseal", "setxattrat", "getxattrat", "listxattrat", "removexattrat",
)
_ARCH_SPECIFIC = {
    "x86_64": ("arch_prctl", "modify_ldt"),
    "aarch64": ("arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2", "breakpoint",
                "cacheflush", "set_tls"),
}
ALLOWED = (*_FILES, *_MEMORY, *_PROCESSES, *_SIGNALS_AND_TIME, *_IO_WAIT_AND_IPC, *_NETWORK,
           *_RENUMBERED)
# clone without CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID or NEWNET.
CLONE_NAMESPACES = 0x7E020000
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)  # Linux, its variants, and the query
AF_VSOCK = 40

# libseccomp's ABI (seccomp.h): actions, comparison operators, architecture tokens.
_ACT_ALLOW = 0x7FFF0000
_CMP_NE, _CMP_EQ, _CMP_MASKED_EQ = 1, 4, 7
_ARCHES = {  # native -> the compat ABIs its kernel also runs (Docker's archMap)
    "x86_64": (0xC000003E, (0x40000003, 0x4000003E)),  # x86_64: x86 (i386), x32
    "aarch64": (0xC00000B7, (0x40000028,)),  # aarch64: arm
}
_SCMP_ARCH = {"x86_64": ("SCMP_ARCH_X86_64", ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]),
              "aarch64": ("SCMP_ARCH_AARCH64", ["SCMP_ARCH_ARM"])}
_FLTATR_CTL_OPTIMIZE = 8  # 2: a binary tree of syscall numbers, not a linear scan
# Native syscall numbers stay below this on every supported arch (x32's carry bit 30 apart).
_NR_CEILING = {"x86_64": 512, "aarch64": 1024}
_NR_CEILING_MAX = 1024

_lock = threading.Lock()
_compiled: bytes | None = None


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _arch() -> str:
    name = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(name, name)


def machine() -> str:
    """This host's architecture as the policy names it; InfraError where it has no table (the
    BPF needs one: the compat ABIs and the calls newer than libseccomp knows)."""
    found = _arch()
    if found not in _ARCHES:
        raise InfraError(f"no seccomp policy for this host's architecture {found!r} (the "
                         f"sandboxes know {', '.join(_ARCHES)})")
    return found


def bpf() -> bytes:
    """The policy compiled for this host (a BPF program as `seccomp(2)` takes it), once per
    process."""
    global _compiled
    with _lock:
        if _compiled is None:
            _compiled = _compile(machine())
        return _compiled


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as e:
        raise InfraError(f"the daemonless backend's seccomp filter needs libseccomp ({e}): "
                         "apt-get install libseccomp2") from e
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_arch_remove.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_merge.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p
    lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def _compile(arch: str) -> bytes:
    lib = _library()
    native, compat = _ARCHES[arch]
    # The ENOSYS rules name raw numbers, which libseccomp takes for one arch only: the native
    # filter carries them, the compat ABIs' filter is merged into it.
    ctx = _filter(lib, arch, native, ())
    try:
        if compat:
            _check(lib.seccomp_merge(ctx, _filter(lib, arch, native, compat)),
                   "merging the compat ABIs' rules")
        return _export(lib, ctx)
    finally:
        lib.seccomp_release(ctx)


def _filter(lib: ctypes.CDLL, arch: str, native: int, compat: tuple[int, ...]) -> int:
    """The policy's rules for the native arch, or (with `compat`) for those ABIs instead."""
    ctx = lib.seccomp_init(_errno_action(errno.EPERM))
    if not ctx:
        raise InfraError("libseccomp could not start a filter (seccomp_init)")
    try:
        for token in compat:
            _check(lib.seccomp_arch_add(ctx, token), "adding a compat architecture")
        if compat:
            _check(lib.seccomp_arch_remove(ctx, native), "leaving the native arch out")
        _check(lib.seccomp_attr_set(ctx, _FLTATR_CTL_OPTIMIZE, 2), "asking for a binary tree")

        def rule(action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr == -1:  # __NR_SCMP_ERROR: no such call on any arch
                return
            args = (_ArgCmp * max(len(cmps), 1))(*(_ArgCmp(*c) for c in cmps))
            done = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), args)
            if done < 0 and nr >= 0 and done != -errno.EDOM:
                _check(done, f"adding the rule for {name}")

        for name in (*ALLOWED, *_ARCH_SPECIFIC[arch]):
            rule(_ACT_ALLOW, name)
        for value in PERSONALITIES:
            rule(_ACT_ALLOW, "personality", (0, _CMP_EQ, value, 0))
        rule(_ACT_ALLOW, "clone", (0, _CMP_MASKED_EQ, CLONE_NAMESPACES, 0))
        rule(_ACT_ALLOW, "socket", (0, _CMP_NE, AF_VSOCK, 0))
        rule(_errno_action(errno.ENOSYS), "clone3")
        if not compat:
            empty = (_ArgCmp * 1)()
            for nr in range(_highest_known(lib, native) + 1, _NR_CEILING[arch]):
                _check(lib.seccomp_rule_add_array(ctx, _errno_action(errno.ENOSYS), nr, 0,
                                                  empty), f"adding ENOSYS for syscall {nr}")
    except BaseException:
        lib.seccomp_release(ctx)
        raise
    return int(ctx)


def _highest_known(lib: ctypes.CDLL, native: int) -> int:
    """The highest syscall number libseccomp has a name for on `native`."""
    free = ctypes.CDLL(None).free
    free.argtypes = [ctypes.c_void_p]
    highest = 0
    for nr in range(_NR_CEILING_MAX):
        name = lib.seccomp_syscall_resolve_num_arch(native, nr)
        if name:
            highest = nr
            free(name)
    return highest


def _export(lib: ctypes.CDLL, ctx: int) -> bytes:
    read, write = os.pipe()
    try:
        # A pipe holds 64 KiB; the program is a few KiB (4096 instructions of 8 bytes at most).
        _check(lib.seccomp_export_bpf(ctx, write), "writing the BPF program")
        os.close(write)
        write = -1
        chunks = []
        while chunk := os.read(read, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def _check(code: int, what: str) -> None:
    if code < 0:
        raise InfraError(f"libseccomp failed {what}: {os.strerror(-code)}")


def profile() -> dict[str, object]:
    """The policy as a Docker/OCI seccomp profile (what Docker takes inline and podman's
    `seccomp=PATH` reads); on an arch the policy has no table for, for the native ABI alone."""
    arch = _arch()
    allow = lambda names, **more: {"names": list(names), "action": "SCMP_ACT_ALLOW", **more}  # noqa: E731
    arches = ([{"architecture": _SCMP_ARCH[arch][0], "subArchitectures": _SCMP_ARCH[arch][1]}]
              if arch in _SCMP_ARCH else [])
    return {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": errno.EPERM,
        "archMap": arches,
        "syscalls": [
            allow([*ALLOWED, *_ARCH_SPECIFIC.get(arch, ())]),
            *(allow(["personality"], args=[{"index": 0, "value": v, "op": "SCMP_CMP_EQ"}])
              for v in PERSONALITIES),
            allow(["clone"], args=[{"index": 0, "value": CLONE_NAMESPACES,
                                    "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]),
            allow(["socket"], args=[{"index": 0, "value": AF_VSOCK, "op": "SCMP_CMP_NE"}]),
            {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": errno.ENOSYS},
        ],
    }


def profile_folder() -> Path:
    """Where `profile_file` goes: beside the harness's other state (/var/lib/evaluator as the
    host's root, the user's cache otherwise)."""
    if os.geteuid() == 0 and _host_root():
        return Path("/var/lib/evaluator/seccomp")
    return cache_home() / "evaluator" / "seccomp"


def profile_file(folder: Path) -> Path:
    """The profile written once into `folder` under its own digest, readable by every user (a
    rootless podman service runs as another user and reads it by path)."""
    data = json.dumps(profile(), indent=1, sort_keys=True).encode()
    path = folder / f"evaluator-seccomp-{hashlib.sha256(data).hexdigest()[:16]}.json"
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    if not folder.is_dir():
        folder.mkdir(parents=True)
        os.chmod(folder, 0o755)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path


def _host_root() -> bool:
    """Root of the host's own user namespace, not of one the harness made."""
    try:
        return Path("/proc/self/uid_map").read_text().split() == ["0", "0", "4294967295"]
    except OSError:
        return True
