"""A Harbor environment that records what the agent asks of it and runs nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harbor.environments.base import ExecResult


@dataclass
class RecordingEnvironment:
    execs: list[dict[str, Any]] = field(default_factory=list)
    uploads: list[tuple[Path, str]] = field(default_factory=list)

    async def exec(self, command: str, user=None, env=None, cwd=None, timeout_sec=None, **_: Any) -> ExecResult:
        self.execs.append({"command": command, "user": user, "env": dict(env or {}), "cwd": cwd})
        return ExecResult(stdout="rein 0.1.0\n", stderr="", return_code=0)

    async def upload_file(self, source_path, target_path: str) -> None:
        self.uploads.append((Path(source_path), target_path))
