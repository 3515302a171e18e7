import pytest


@pytest.fixture
def defaults():
    return {
        "name": "inventory",
        "debug": False,
        "workers": 2,
        "timeout": 2.5,
        "allowed_hosts": ["localhost"],
        "db": {"host": "localhost", "port": 5432, "pool": {"size": 5}},
    }
