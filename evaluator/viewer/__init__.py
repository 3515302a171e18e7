"""The viewer: a static site of a run (run index, task grid, one page per attempt and per task)
rendered from the store, opened from disk or served by the API under `/ui/`.

Every string from an agent, a model or a test run is escaped (Jinja2 autoescape) and the pages
carry a policy that lets no script run. Long observations and outputs are cut on the page and
linked in full beside it.
"""

from evaluator.viewer._data import Limits, Records, RunData, TaskInfo
from evaluator.viewer._site import Site, content_type, static_file

__all__ = ["Limits", "Records", "RunData", "Site", "TaskInfo", "content_type", "static_file"]
