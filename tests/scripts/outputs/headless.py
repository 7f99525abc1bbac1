"""Headless Chromium for the page tests (check_report.py, check_plot.py): find the browser, or skip
(exit 77) where none is installed outside CI, and run it with a fresh profile and nothing from the
network."""
import os
import shutil
import subprocess
import sys
import tempfile


def find_browser():
    """The Chromium binary; exits 77 (skip) without one, or 1 in CI, which must have it."""
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                   None)
    if browser is None:
        if os.environ.get("CI"):
            print("FAILED: no chromium in CI (.ci/setup installs Debian's chromium)")
            sys.exit(1)
        print("SKIP: no chromium on this machine")
        sys.exit(77)
    return browser


def chromium(browser, args, url):
    """Runs headless Chromium on `url` with `args` (--dump-dom, --screenshot=...); its stdout."""
    with tempfile.TemporaryDirectory(prefix="stepsim-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-quic", "--hide-scrollbars", f"--user-data-dir={profile}", *args, url]
        return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120).stdout
