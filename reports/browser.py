#!/usr/bin/python3
"""A headless browser for the HTML report: Debian's chromium driven by chromedriver through
python3-selenium (make deps installs the three). The browser test
(tests/python/test_html_report.py) and `make screenshot` use it.

Usage: /usr/bin/python3 reports/browser.py INDEX.html OUT.png  (a screenshot of a page,
1400 x 1000 CSS pixels). Exit status 2 when the browser cannot start or the page is absent.
"""
import os
import sys

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WINDOW = (1400, 1000)


def available():
    """'' when the browser can be driven here, else why not (one line)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    if missing:
        return f"not installed: {', '.join(missing)} (make deps installs chromium)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "python3-selenium is not installed (make deps installs it)"
    return ""


def open_browser():
    """A headless chromium (selenium WebDriver) logging the console ('browser' log) and
    the network ('performance' log, Network.* events). The caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WINDOW[0]},{WINDOW[1]}", "--no-first-run",
                "--disable-extensions", "--disable-background-networking"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def screenshot(page, png):
    """Write a PNG of the HTML file `page` as the browser draws it."""
    driver = open_browser()
    try:
        driver.get("file://" + os.path.abspath(page))
        driver.save_screenshot(png)
    finally:
        driver.quit()


def main(argv):
    if len(argv) != 2 or not os.path.isfile(argv[0]):
        print("usage: browser.py INDEX.html OUT.png (an existing page)", file=sys.stderr)
        return 2
    why = available()
    if why:
        print(f"browser.py: {why}", file=sys.stderr)
        return 2
    screenshot(argv[0], argv[1])
    print(f"browser.py: wrote {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
