"""A real browser for the tests: Debian's Chromium, headless, driven over the DevTools protocol.

No browser download and no driver package: Chromium listens on a local DevTools port, and
websocket-client (already pinned, for Jupyter) sends it commands: open a page, run a line of
JavaScript in it (a click, a value typed, a question about the page), wait until something
shows. Chromium gets the flags this machine needs (no sandbox as root, no background
networking, a fresh profile).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--remote-allow-origins=*", "--remote-debugging-port=0")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, profile: Path, executable: str, seconds: float = 60.0) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = profile / "DevToolsActivePort"  # Chromium writes its port here once it listens
        deadline = time.monotonic() + seconds
        while not (active.exists() and active.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("Chromium did not start its DevTools server")
            time.sleep(0.1)
        port = active.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=seconds) as reply:
            page = next(t for t in json.load(reply) if t["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=seconds, suppress_origin=True)
        self.next_id = 0

    def command(self, method: str, **params) -> dict:
        """One DevTools command's result (events that arrive meanwhile are dropped)."""
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def js(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} raised in the page: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, seconds: float = 60.0):
        """The expression's first truthy value, polled until ``seconds`` have passed."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                value = self.js(expression)
            except RuntimeError:  # the page is being replaced (a navigation): ask the next one
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page never showed {expression!r}")
            time.sleep(0.2)

    def open(self, url: str) -> None:
        self.command("Page.navigate", url=url)
        time.sleep(0.2)
        self.wait("document.readyState === 'complete' && location.href !== 'about:blank'")

    def screenshot(self, path: Path) -> None:
        import base64
        path.write_bytes(base64.b64decode(self.command("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            self.socket.close()
        except Exception:  # noqa: BLE001 - closing what may never have opened
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
