"""rein as a Harbor installed agent.

Built on Harbor's Claude Code agent, whose flags, model connection and trajectory
conversion rein shares: rein reads Claude Code's flags and writes Claude Code's
transcripts (``$REIN_HOME/projects/<cwd>/<session>.jsonl``), so pointing ``REIN_HOME`` at
the agent's log directory lets Harbor turn rein's sessions into ATIF as it does Claude
Code's. What differs: the binary is uploaded into the trial (one static file, no network
inside), rein runs with ``IS_SANDBOX=1`` (the trial's container is the sandbox), and the
calls rein's permission engine refused are recorded in the trial's metadata.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import uuid
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.agents.installed.claude_code import ClaudeCode
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

#: Where the binary goes in the trial.
REMOTE_BINARY = PurePosixPath("/installed-agent/rein")


def find_binary(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The rein binary to upload: ``rein_binary=``, ``$REIN_BINARY``, or ``rein`` on PATH."""
    candidate = explicit or os.environ.get("REIN_BINARY") or shutil.which("rein")
    if not candidate:
        raise FileNotFoundError(
            "no rein binary: pass rein_binary=PATH (--agent-kwarg rein_binary=PATH), "
            "set REIN_BINARY, or put rein on PATH"
        )
    path = Path(candidate).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"the rein binary {path} does not exist")
    return path


class Rein(ClaudeCode):
    """rein, run headless in the trial with the flags Harbor gives Claude Code."""

    def __init__(self, logs_dir: Path, *args: Any, rein_binary: str | None = None, **kwargs: Any):
        self._rein_binary = rein_binary
        super().__init__(logs_dir, *args, **kwargs)

    @staticmethod
    def name() -> str:
        return "rein"

    def get_version_command(self) -> str | None:
        return f"{REMOTE_BINARY} --version"

    def parse_version(self, stdout: str) -> str:
        words = stdout.strip().split()
        return next((w for w in words if w[:1].isdigit()), stdout.strip())

    async def install(self, environment: BaseEnvironment) -> None:
        binary = find_binary(self._rein_binary)
        await environment.upload_file(binary, REMOTE_BINARY.as_posix())
        await self.exec_as_root(
            environment,
            command=f"chmod 755 {REMOTE_BINARY} && ln -sf {REMOTE_BINARY} /usr/local/bin/rein",
        )

    def run_env(self) -> dict[str, str]:
        """The environment rein runs with in the trial."""
        env = self._resolve_auth_env()
        model = self._resolved_model_name()
        if model:
            env["ANTHROPIC_MODEL"] = model
        # The trial's container is the sandbox: bypassPermissions means it (rein reads this
        # from its own environment only, never from a repository's settings).
        env["IS_SANDBOX"] = "1"
        sessions = (self.environment_logs_dir / "sessions").as_posix()
        # rein's transcripts land where Harbor reads Claude Code's.
        env["REIN_HOME"] = sessions
        env["CLAUDE_CONFIG_DIR"] = sessions
        env.update(self._resolved_env_vars)
        return env

    def run_command(self, instruction_var: str) -> str:
        """The shell line that runs rein on the instruction held in ``instruction_var``."""
        flags = self.build_cli_flags()
        log = (self.environment_logs_dir / "rein.txt").as_posix()
        return (
            f'mkdir -p "$REIN_HOME" && printf "%s" "${instruction_var}" | '
            f"{REMOTE_BINARY} --verbose --output-format=stream-json "
            f"{flags + ' ' if flags else ''}"
            f"{'--continue ' if self._resume else ''}"
            f"--print 2>&1 | tee {shlex.quote(log)}"
        )

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        env = self.run_env()
        variable = f"REIN_INSTRUCTION_{uuid.uuid4().hex.upper()}"
        await self.exec_as_agent(
            environment,
            command=self.run_command(variable),
            env={**env, variable: self.render_instruction(instruction)},
        )

    def convert_trajectory(self, logs_dir: Path):
        trajectory = super().convert_trajectory(logs_dir)
        if trajectory is not None:
            trajectory.agent.name = self.name()
            trajectory.agent.version = self._version or trajectory.agent.version
        return trajectory

    def result_line(self) -> dict[str, Any] | None:
        """The stream-json ``result`` line rein printed last, if any."""
        log = self.logs_dir / "rein.txt"
        if not log.is_file():
            return None
        result = None
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and value.get("type") == "result":
                result = value
        return result

    def populate_context_post_run(self, context: AgentContext) -> None:
        super().populate_context_post_run(context)
        result = self.result_line()
        if result is None:
            return
        usage = result.get("usage") or {}
        if context.n_input_tokens is None:
            cached = usage.get("cache_read_input_tokens", 0)
            context.n_input_tokens = usage.get("input_tokens", 0) + cached + usage.get("cache_creation_input_tokens", 0)
            context.n_cache_tokens = cached
            context.n_output_tokens = usage.get("output_tokens", 0)
        # rein prices its own requests (the trajectory's figure is an estimate by model name).
        if result.get("total_cost_usd") is not None:
            context.cost_usd = result["total_cost_usd"]
        metadata = dict(context.metadata or {})
        metadata["permission_denials"] = result.get("permission_denials", [])
        metadata["rein_result"] = result.get("subtype")
        context.metadata = metadata
