"""The HTML report (reports/html_report.py), built by report.py from a small run made here:
every page's links resolve inside its folder and none leaves it; then in a real browser
(headless chromium through selenium, make deps installs it): a table filtered by an axis
shows exactly the rows of that value, a claim's links lead to its chart and to its cases, a
case page draws its repetitions, and no page logs a console error or requests anything
outside the folder."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import BIN as DODBENCH, ROOT

sys.path.insert(0, str(ROOT / "reports"))
import browser  # noqa: E402

CONTAINERS = "plain_array,handle_map,bulk_holes_realloc,bulk_swappop_realloc,peer_unordered_map"
LINK = re.compile(r'(?:href|src)="([^"#]*)(?:#[^"]*)?"')


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(report directory, its index.html) of a run of 5 containers, iterate and random
    lookup at n = 1000 and 4000, with and without holes, 3 reps."""
    work = tmp_path_factory.mktemp("html")
    csv = work / "run.csv"
    for scenario, order in (("iterate", "seq"), ("lookup", "random")):
        subprocess.run([DODBENCH, "run", "--seed", "1", "--run-id", "bench-fixture", "--out",
                        str(csv), "--container", CONTAINERS, "--scenario", scenario, "--order",
                        order, "--n", "1000,4000", "--hole-ratio", "0,0.5", "--reps", "3",
                        "--warmup", "0", "--quiet"], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
    out = work / "report"
    subprocess.run([sys.executable, str(ROOT / "reports" / "report.py"), "--out-dir", str(out),
                    str(csv)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return out, out / "index.html"


def test_every_link_resolves_inside_the_folder(site):
    out, index = site
    pages = [index] + sorted((out / "site").rglob("*.html"))
    assert len(pages) > 40  # index, claims, scenarios, cases, machine
    for path in pages:
        text = path.read_text()
        assert not re.search(r"(?:href|src)=\"(?:https?:)?//", text), path
        for target in LINK.findall(text):
            if target:
                resolved = (path.parent / target).resolve()
                assert resolved.is_file(), (path, target)
                assert out.resolve() in resolved.parents, (path, target)


def test_a_case_page_has_its_repetitions_and_no_invented_counters(site):
    out, _ = site
    page = (out / "site/cases/lookup_handle_map_n_1000_elem_8_order_random.html").read_text()
    assert page.count("<circle") == 3
    assert "Hardware counters: unavailable" in page or "median per op" in page
    assert "no previous run of this case" in page


needs_browser = pytest.mark.skipif(bool(browser.available()), reason=browser.available())


def visible_rows(driver, table):
    return [r for r in table.find_elements("css selector", "tbody tr") if r.is_displayed()]


def left_folder(driver, out):
    """The URLs the pages requested outside the report's folder (the performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    inside = "file://" + str(out.resolve()) + "/"
    return [u for u in urls if not u.startswith(inside)], urls


@needs_browser
def test_in_a_browser_filter_follow_a_claim_to_its_repetitions(site, tmp_path):
    out, index = site
    driver = browser.open_browser()
    try:
        driver.get(f"file://{out.resolve()}/site/scenarios/lookup.html")
        table = driver.find_element("css selector", "table.sortable")
        assert len(visible_rows(driver, table)) == 18  # 5 containers x 2 n x 2 ratios, but
        # plain_array (no erase_n) without holes
        select = driver.find_element("css selector", "select[name=container]")
        select.find_element("css selector", "option[value=handle_map]").click()
        shown = visible_rows(driver, table)
        assert len(shown) == 4 and all("handle_map" in r.text for r in shown)
        assert "4 of 18 rows shown" in driver.page_source

        driver.get(f"file://{index.resolve()}")
        row = next(r for r in driver.find_elements("css selector", "tbody tr")
                   if r.find_elements("css selector", "a.chart")
                   and r.find_elements("css selector", "a.cases"))
        chart = row.find_element("css selector", "a.chart").get_attribute("href")
        row.find_element("css selector", "a.cases").click()  # click 1: the claim's page
        assert "/site/claims/" in driver.current_url
        image = driver.find_element("css selector", "img.chart")
        assert image.get_attribute("src") == chart
        assert driver.execute_script("return arguments[0].naturalWidth", image) > 0
        driver.find_element("css selector", "a.case").click()  # click 2: a case page
        assert "/site/cases/" in driver.current_url
        circles = driver.find_elements("css selector", "svg.reps circle")
        assert len(circles) == 3 and circles[0].is_displayed()
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        outside, seen = left_folder(driver, out)
        assert seen and not outside, outside
        png = tmp_path / "index.png"
        driver.get(f"file://{index.resolve()}")
        driver.save_screenshot(str(png))
        assert png.read_bytes()[:4] == b"\x89PNG"
    finally:
        driver.quit()
