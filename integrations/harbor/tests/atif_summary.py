"""Turn the rein run in LOGS (``sessions/`` as REIN_HOME, ``rein.txt`` its stream-json
output) into Harbor's ATIF through the adapter, validate it with Harbor's own model, and
print what a test checks: the steps' tool calls, the final metrics and the context."""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("ANTHROPIC_API_KEY", "unused")

from harbor.models.agent.context import AgentContext  # noqa: E402
from harbor.models.trajectories.trajectory import Trajectory  # noqa: E402

from rein_harbor import Rein  # noqa: E402

logs = Path(sys.argv[1])
agent = Rein(logs_dir=logs, model_name="anthropic/claude-sonnet-4-5", rein_binary=sys.argv[2])
context = AgentContext()
agent.populate_context_post_run(context)
written = json.loads((logs / "trajectory.json").read_text())
trajectory = Trajectory.model_validate(written)
calls = [c.function_name for s in trajectory.steps for c in (s.tool_calls or [])]
print(json.dumps({
    "schema_version": trajectory.schema_version,
    "agent": trajectory.agent.name,
    "session_id": trajectory.session_id,
    "tool_calls": calls,
    "observations": sum(len(s.observation.results) for s in trajectory.steps if s.observation),
    "final_metrics": trajectory.final_metrics.model_dump() if trajectory.final_metrics else None,
    "context": context.model_dump(mode="json"),
}))
