from tests.grading.conftest import grader, hidden, spec, task_image  # noqa: F401
