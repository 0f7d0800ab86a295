"""A headless Chromium driven over the DevTools protocol.

Enough for the report test: open a page, collect console messages, exceptions and network
requests, evaluate JavaScript and take a full-page screenshot. The websocket is
``websocket-client``'s (a test extra; it answers pings and joins continuation frames); the
browser runs in its own process group, which :meth:`Browser.close` ends.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
)


class Browser:
    """Headless Chromium with one page, driven over DevTools."""

    def __init__(
        self,
        executable: str,
        profile: Path,
        *,
        width: int = 1400,
        height: int = 1000,
        timeout: float = 60.0,
    ) -> None:
        self.timeout = timeout
        self.events: list[dict] = []
        self._next_id = 0
        self.log = profile / "chromium.log"
        port_file = profile / "DevToolsActivePort"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [
                    executable,
                    *FLAGS,
                    f"--user-data-dir={profile}",
                    f"--window-size={width},{height}",
                    "--remote-debugging-port=0",
                    "about:blank",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not port_file.exists() or not port_file.read_text().strip():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"chromium did not start; log:\n{self.log.read_text()[-2000:]}")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        pages = self._targets(port, deadline)
        # No Origin header: DevTools refuses origins it was not told to allow.
        self.ws = websocket.create_connection(
            pages[0]["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True
        )

    def _targets(self, port: int, deadline: float) -> list[dict]:
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/json/list", timeout=5
                ) as response:
                    pages = [t for t in json.load(response) if t.get("type") == "page"]
                if pages:
                    return pages
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromium exposed no page to DevTools")
            time.sleep(0.1)

    def _receive(self) -> dict:
        """The next DevTools message (a close frame reads as an empty one)."""
        text = self.ws.recv()
        if not text:
            raise ConnectionError("DevTools closed the websocket")
        return json.loads(text)

    def call(self, method: str, **params) -> dict:
        """Send a command and return its result (events seen meanwhile are kept)."""
        self._next_id += 1
        call_id = self._next_id
        self.ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = self._receive()
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, event: str) -> dict:
        for seen in self.events:
            if seen["method"] == event:
                return seen
        while True:
            message = self._receive()
            if "method" in message:
                self.events.append(message)
                if message["method"] == event:
                    return message

    def evaluate(self, expression: str):
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str) -> None:
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and browser log errors."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append(
                    f"exception: {p['exceptionDetails'].get('text')} "
                    f"{p['exceptionDetails'].get('exception', {}).get('description')}"
                )
            elif e["method"] == "Runtime.consoleAPICalled" and p["type"] in (
                "error",
                "assert",
                "warning",
            ):
                out.append(f"console.{p['type']}: {[a.get('value') for a in p['args']]}")
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry']['text']}")
        return out

    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def screenshot(self, path: Path, *, width: int = 1400, max_height: int = 12000) -> Path:
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        height = min(max_height, int(size["height"]) + 1)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the group this object started
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
