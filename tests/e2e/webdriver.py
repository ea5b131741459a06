"""A minimal W3C WebDriver client (standard library only) for the end-to-end tests.

It talks to tauri-driver, which starts the app through WebKitWebDriver. Only what the tests use
is here: sessions, finding and clicking elements, running scripts, keys and screenshots.
"""

import base64
import http.client
import json
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a07e-4f57d6b0b4d1"


class WebDriverError(Exception):
    """An error reply from the driver: `error` is the W3C code (e.g. "no such alert")."""

    def __init__(self, error, message):
        super().__init__(f"{error}: {message}")
        self.error = error


class Driver:
    def __init__(self, url):
        self.url = url.rstrip("/")
        self.sid = None

    def _req(self, method, path, body=None):
        # tauri-driver keeps a pool of connections to WebKitWebDriver and sometimes sends a
        # request on one WebKitWebDriver has already closed; the reply is then a dropped
        # connection and the command never reached the browser, so sending it again is safe.
        for attempt in range(3):
            try:
                return self._req_once(method, path, body)
            except (http.client.RemoteDisconnected, ConnectionResetError):
                if attempt == 2:
                    raise
                time.sleep(0.2)

    def _req_once(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read() or b"{}").get("value")
        except urllib.error.HTTPError as e:
            try:
                v = json.loads(e.read()).get("value", {})
            except ValueError:
                v = {}
            raise WebDriverError(v.get("error", str(e.code)), v.get("message", "")) from None

    def wait_ready(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            try:
                self._req("GET", "/status")
                return
            except (urllib.error.URLError, ConnectionError, WebDriverError):
                time.sleep(0.2)
        raise TimeoutError(f"WebDriver at {self.url} did not come up in {timeout}s")

    def start(self, application, args):
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": application, "args": args},
        }}}
        self.sid = self._req("POST", "/session", caps)["sessionId"]

    def quit(self):
        if self.sid:
            try:
                self._req("DELETE", f"/session/{self.sid}")
            finally:
                self.sid = None

    def s(self, path):
        return f"/session/{self.sid}{path}"

    def run(self, script, *args):
        """Runs `script` (a function body; `arguments` holds args) and returns its value."""
        return self._req("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def find(self, css):
        v = self._req("POST", self.s("/element"), {"using": "css selector", "value": css})
        if not isinstance(v, dict) or not v:
            raise WebDriverError("no such element", f"{css} -> {v!r}")
        return v.get(ELEMENT) or next(iter(v.values()))

    def click(self, css):
        self._req("POST", self.s(f"/element/{self.find(css)}/click"), {})

    def text(self, css):
        return self._req("GET", self.s(f"/element/{self.find(css)}/text"))

    def keys(self, text):
        """Types `text` as real key presses (W3C actions), to whatever has focus."""
        actions = []
        for ch in text:
            actions += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self._req("POST", self.s("/actions"),
                  {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})
        self._req("DELETE", self.s("/actions"))

    def chord(self, modifier, key):
        """Presses `key` with `modifier` held ("\ue009" is Control), as one W3C action."""
        actions = [{"type": "keyDown", "value": modifier}, {"type": "keyDown", "value": key},
                   {"type": "keyUp", "value": key}, {"type": "keyUp", "value": modifier}]
        self._req("POST", self.s("/actions"),
                  {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})
        self._req("DELETE", self.s("/actions"))

    def alert_text(self):
        """The text of an open alert/confirm/prompt, or None when there is none."""
        try:
            return self._req("GET", self.s("/alert/text"))
        except WebDriverError as e:
            if e.error == "no such alert":
                return None
            raise

    def screenshot(self, path):
        png = base64.b64decode(self._req("GET", self.s("/screenshot")))
        with open(path, "wb") as f:
            f.write(png)

    def wait(self, script, *args, timeout=15, what="condition"):
        """Polls `script` until it returns something truthy; returns that value."""
        end = time.time() + timeout
        last = None
        while time.time() < end:
            last = self.run(script, *args)
            if last:
                return last
            time.sleep(0.1)
        raise TimeoutError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
