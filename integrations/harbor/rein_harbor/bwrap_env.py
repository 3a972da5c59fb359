"""A Harbor environment for machines without a container engine (tests, CI): each trial
is confined with bubblewrap — the host's system read-only, the trial's own ``/app``,
``/logs``, ``/tests``, ``/solution``, ``/installed-agent``, ``/root`` and ``/tmp`` — and
runs in a private network namespace that has only its own loopback. With
``REIN_HARBOR_FAKE_SCENARIO`` set, a fake model server (``rein-testkit serve``) listens on
the trial's own ``127.0.0.1:8787``, so concurrent trials each get their own model,
independently, and nothing reaches the network.

Used as ``harbor run -e rein_harbor.bwrap_env:BubblewrapEnvironment``. Needs root (to
enter the trial's network namespace with nsenter) and ``bwrap``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

#: The trial's own directories, as the trial sees them.
TRIAL_DIRS = ("/app", "/logs", "/tests", "/solution", "/installed-agent", "/root", "/tmp", "/usr/local/bin")
#: The fake model's port inside each trial.
FAKE_PORT = 8787


def _host_name(path: str) -> str:
    return path.strip("/").replace("/", "_") or "root_fs"


class BubblewrapEnvironment(BaseEnvironment):
    """One trial in bubblewrap with a private loopback network."""

    @staticmethod
    def type() -> str:
        return "rein-bwrap"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(disable_internet=True)

    def _validate_definition(self) -> None:
        if shutil.which("bwrap") is None or shutil.which("nsenter") is None:
            raise FileNotFoundError("the bubblewrap environment needs bwrap and nsenter (util-linux)")

    # The trial's files on the host.
    def _host(self, path: str) -> Path:
        """Where the trial's `path` lives on the host."""
        clean = "/" + path.strip("/")
        for mount in sorted(TRIAL_DIRS, key=len, reverse=True):
            if clean == mount or clean.startswith(mount + "/"):
                return self._root / _host_name(mount) / clean[len(mount) :].lstrip("/")
        raise ValueError(f"{path} is outside the trial's writable directories {TRIAL_DIRS}")

    async def start(self, force_build: bool) -> None:
        self._root = Path(tempfile.mkdtemp(prefix=f"rein-trial-{self.session_id[:40]}-"))
        for mount in TRIAL_DIRS:
            (self._root / _host_name(mount)).mkdir(parents=True, exist_ok=True)
        for sub in ("agent", "verifier", "artifacts"):
            (self._root / "logs" / sub).mkdir(parents=True, exist_ok=True)
        # The trial's network: a holder process in a new network namespace (bwrap brings
        # its loopback up), whose namespace every command and the fake model join.
        read, write = os.pipe()
        self._holder = await asyncio.create_subprocess_exec(
            "bwrap", "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent",
            "--info-fd", str(write), "--", "sleep", "infinity",
            pass_fds=(write,), stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )
        os.close(write)
        with os.fdopen(read) as info:
            self._netns_pid = int(json.loads(await asyncio.to_thread(info.read))["child-pid"])
        self._fake: asyncio.subprocess.Process | None = None
        scenario = os.environ.get("REIN_HARBOR_FAKE_SCENARIO")
        if scenario:
            testkit = os.environ.get("REIN_TESTKIT_BIN") or shutil.which("rein-testkit") or "rein-testkit"
            self._fake = await asyncio.create_subprocess_exec(
                "nsenter", "-t", str(self._netns_pid), "-n", "--", testkit, "serve", scenario, "--port", str(FAKE_PORT),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
            )
            await self._wait_for_fake()
        # Task files (environment/) go to the working directory, as the image's would.
        if self.environment_dir.is_dir():
            for item in self.environment_dir.iterdir():
                if item.name != "Dockerfile":
                    self._copy_in(item, self._host("/app") / item.name)

    async def _wait_for_fake(self) -> None:
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{FAKE_PORT}"
        for _ in range(200):
            result = await self.exec(f"bash -c '{probe}' 2>/dev/null")
            if result.return_code == 0:
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("the trial's fake model server did not start")

    async def stop(self, delete: bool) -> None:
        for process in (self._fake, self._holder):
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
        if delete:
            shutil.rmtree(self._root, ignore_errors=True)

    def _bwrap(self, command: str, cwd: str | None, env: dict[str, str]) -> list[str]:
        args = ["bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        for system in ("/usr", "/etc", "/opt"):
            if os.path.isdir(system):
                args += ["--ro-bind", system, system]
        for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        args += ["--proc", "/proc", "--dev", "/dev"]
        for mount in TRIAL_DIRS:
            args += ["--bind", str(self._root / _host_name(mount)), mount]
        args += ["--clearenv", "--chdir", cwd or "/app"]
        base = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": "/root", "LANG": "C.UTF-8"}
        for key, value in {**base, **self._persistent_env, **env}.items():
            args += ["--setenv", key, value]
        return args + ["--", "bash", "-c", command]

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        process = await asyncio.create_subprocess_exec(
            "nsenter", "-t", str(self._netns_pid), "-n", "--", *self._bwrap(command, cwd, env or {}),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
        )
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(), timeout_sec)
        except TimeoutError:
            process.kill()
            stdout, stderr = await process.communicate()
            return ExecResult(stdout=stdout.decode(errors="replace"), stderr="timed out", return_code=124)
        return ExecResult(
            stdout=stdout.decode(errors="replace"),
            stderr=stderr.decode(errors="replace"),
            return_code=process.returncode if process.returncode is not None else -1,
        )

    @staticmethod
    def _copy_in(source: Path, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True)
            return
        # A large file (the agent's binary) on the same filesystem is linked, not copied:
        # N concurrent trials must not need N copies of the disk it takes. (The trials
        # then share that one file; this is a test environment.)
        if source.stat().st_size >= 8 << 20:
            try:
                target.unlink(missing_ok=True)
                os.link(source, target)
                return
            except OSError:
                pass
        shutil.copy2(source, target)

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        self._copy_in(Path(source_path), self._host(target_path))

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        self._copy_in(Path(source_dir), self._host(target_dir))

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self._host(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        source = self._host(source_dir)
        if source.is_dir():
            shutil.copytree(source, target_dir, dirs_exist_ok=True, symlinks=True)
