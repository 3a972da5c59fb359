"""The adapter against a recording environment: install steps, command line, environment,
and what it reads back from rein's output."""

import asyncio
import json
from pathlib import Path

import pytest
from harbor.models.agent.context import AgentContext

from rein_harbor import Rein
from rein_harbor.agent import REMOTE_BINARY, find_binary
from recording import RecordingEnvironment


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    b = tmp_path / "rein"
    b.write_bytes(b"\x7fELF fake")
    return b


def agent(tmp_path: Path, binary: Path, **kwargs) -> Rein:
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    return Rein(logs_dir=logs, model_name="anthropic/claude-sonnet-4-5", rein_binary=str(binary), **kwargs)


def test_install_uploads_the_binary_and_needs_no_network(tmp_path, binary, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    env = RecordingEnvironment()
    asyncio.run(agent(tmp_path, binary).install(env))
    assert env.uploads == [(binary.resolve(), str(REMOTE_BINARY))]
    commands = " ".join(e["command"] for e in env.execs)
    assert "chmod 755 /installed-agent/rein" in commands
    assert "curl" not in commands and "npm" not in commands and "apt" not in commands
    assert all(e["user"] == "root" for e in env.execs)


def test_run_passes_claude_codes_flags_and_the_container_environment(tmp_path, binary, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    a = agent(tmp_path, binary, max_turns=7, disallowed_tools="WebFetch")
    env = RecordingEnvironment()
    instruction = "Fix the failing test; don't touch 'docs/'."
    asyncio.run(a.run(instruction, env, AgentContext()))
    (call,) = env.execs
    command, run_env = call["command"], call["env"]
    assert f"{REMOTE_BINARY} --verbose --output-format=stream-json" in command
    assert "--permission-mode=bypassPermissions" in command and "--print" in command
    assert "--max-turns 7" in command and "--disallowedTools WebFetch" in command
    assert instruction not in command, "the instruction goes through the environment, unquoted nowhere"
    assert instruction in run_env.values()
    assert run_env["IS_SANDBOX"] == "1"
    assert run_env["REIN_HOME"].endswith("/sessions") and run_env["REIN_HOME"] == run_env["CLAUDE_CONFIG_DIR"]
    assert run_env["ANTHROPIC_API_KEY"] == "sk-test"
    assert run_env["ANTHROPIC_MODEL"] == "claude-sonnet-4-5"
    assert "tee" in command and "rein.txt" in command


def test_refusals_tokens_and_cost_come_from_reins_result_line(tmp_path, binary, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    a = agent(tmp_path, binary)
    denial = {"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "rm -rf /"}}
    result = {"type": "result", "subtype": "success", "total_cost_usd": 0.0123,
              "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50,
                        "cache_creation_input_tokens": 0},
              "permission_denials": [denial]}
    lines = [json.dumps({"type": "system", "subtype": "init"}), "not json", json.dumps(result)]
    (a.logs_dir / "rein.txt").write_text("\n".join(lines) + "\n")
    context = AgentContext()
    a.populate_context_post_run(context)
    assert context.metadata["permission_denials"] == [denial]
    assert context.n_input_tokens == 150 and context.n_cache_tokens == 50 and context.n_output_tokens == 20
    assert context.cost_usd == pytest.approx(0.0123)


def test_a_missing_binary_says_how_to_give_one(tmp_path, monkeypatch):
    monkeypatch.delenv("REIN_BINARY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="rein_binary"):
        find_binary(None)
