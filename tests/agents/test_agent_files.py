"""A bad agent file is refused naming the file and the field; a valid but unusual layout loads."""

from __future__ import annotations

import pytest
import yaml

from evaluator.errors import BadInputError
from tests.agents.support import ExtAgent, agent_yaml


def _config(ext: ExtAgent, **fields: object) -> None:
    (ext.agents / "ext" / "agent.yaml").write_text(yaml.safe_dump({**agent_yaml(), **fields}))


def test_extra_modules_in_a_nested_namespace_package_are_followed(ext: ExtAgent) -> None:
    # No __init__.py at either level: the import system's own namespace path raised KeyError.
    (ext.code / "plugins" / "shells").mkdir(parents=True)
    ext.write("plugins/shells/bash.py", "from extagent import late\n")
    _config(ext, extra_modules=["plugins.shells.bash"])
    assert {"plugins.shells.bash", "extagent.late"} <= set(ext.load().code.modules)


@pytest.mark.parametrize("name", ["nosuch.helper", "extagent.nosuch", "extagent..late", ""])
def test_an_extra_module_that_is_not_there_is_named_with_its_field(ext: ExtAgent,
                                                                    name: str) -> None:
    _config(ext, extra_modules=["extagent.late", name])
    with pytest.raises(BadInputError, match=r"agent\.yaml: field 'extra_modules\.1': .*"
                                            + repr(name).replace(".", r"\.")):
        ext.load()


def test_a_missing_prompt_file_is_named_with_its_field(ext: ExtAgent) -> None:
    (ext.agents / "ext" / "instance.j2").unlink()
    with pytest.raises(BadInputError, match=r"agent\.yaml: field 'prompts\.instance'"):
        ext.load()


def test_an_unknown_field_is_named(ext: ExtAgent) -> None:
    _config(ext, colour="blue")
    with pytest.raises(BadInputError, match=r"agent\.yaml: field 'colour': unknown field"):
        ext.load()
