#!/usr/bin/env bash
# run_offline.sh N: a Harbor job of N concurrent trials of the bundled smoke task
# (smoke/task), run by Harbor's own orchestration with rein as the agent, each trial
# confined with bubblewrap in a private loopback network with its own fake model server
# (smoke/scenario.json), offline. Prints the job directory on its last line.
# Needs root, bwrap and nsenter; the rein and rein-testkit binaries (REIN_BINARY,
# REIN_TESTKIT_BIN; default: the workspace's target/debug); Harbor in .ci/harbor-venv
# (scripts/prepare installs it) or HARBOR_PYTHON.
set -euo pipefail
n="${1:-4}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${HARBOR_PYTHON:-$root/.ci/harbor-venv/bin/python}"
export REIN_BINARY="${REIN_BINARY:-$root/target/debug/rein}"
export REIN_TESTKIT_BIN="${REIN_TESTKIT_BIN:-$root/target/debug/rein-testkit}"
export REIN_HARBOR_FAKE_SCENARIO="$here/smoke/scenario.json"
# Every trial's model is its own fake on its own loopback.
export ANTHROPIC_BASE_URL="http://127.0.0.1:8787" ANTHROPIC_API_KEY="sk-fake-offline"
# Offline: no telemetry, no price-table download.
export HARBOR_TELEMETRY=0 LITELLM_LOCAL_MODEL_COST_MAP=True
jobs="${REIN_HARBOR_JOBS_DIR:-$(mktemp -d -t rein-harbor-jobs-XXXXXX)}"
# One stripped copy of rein beside the jobs, which the trials link to (same filesystem).
mkdir -p "$jobs/.agent"
strip -o "$jobs/.agent/rein" "$REIN_BINARY" 2>/dev/null || cp "$REIN_BINARY" "$jobs/.agent/rein"
export REIN_BINARY="$jobs/.agent/rein"
"$python" -m harbor.cli.main run --yes --quiet \
  -p "$here/smoke/task" -k "$n" -n "$n" \
  -a rein_harbor:Rein -m anthropic/claude-sonnet-4-5 \
  -e rein_harbor.bwrap_env:BubblewrapEnvironment \
  -o "$jobs" >&2
job="$(find "$jobs" -mindepth 1 -maxdepth 1 -type d ! -name .agent | head -n 1)"
[ -n "$job" ] || { echo "run_offline.sh: Harbor wrote no job under $jobs" >&2; exit 1; }
echo "$job"
