"""An external agent (entry point `tests.pipeline.cheating_agent:run`) that cheats on purpose.

It also shows the plug-in interface: a callable receiving an AgentContext.
"""

from evaluator.agents import AgentContext


def run(ctx: AgentContext) -> None:
    ctx.record_step("git log --all --oneline", ctx.sandbox.exec("git log --all --oneline").output, {})
    cmd = "sed -i 's/a - b/a + b/' calc/ops.py && echo '# tweaked' >> tests/test_visible.py"
    ctx.record_step(cmd, ctx.sandbox.exec(cmd).output, {})
