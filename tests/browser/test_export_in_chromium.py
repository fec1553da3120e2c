"""The exported HTML page in a real browser: headless Chromium driven by Selenium (Debian's chromium and
chromium-driver, installed by ``.ci/run``).

The page holds a session full of hostile content (tests/browser/hostile.py). The tests assert that no
injected script ran, that no request left the page (Chromium's performance log, read through
chromedriver, lists every request), that the console stayed free of errors, and that branch switching,
search, filters and deep links work. A probe script inserted after load must be refused: without the
page's Content-Security-Policy it would run, so the test fails if the policy goes missing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.export import ExportOptions, render_export
from core.session import load_session
from tests.browser.hostile import write_hostile_session
from tests.conftest import SHARED

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="needs Debian's chromium and chromium-driver (apt-get install)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("page")
    session = load_session(write_hostile_session(folder))
    target = folder / "hostile.html"
    target.write_bytes(render_export(session, "html", ExportOptions(), whole_tree=True).data)
    return target


def _open(browser: webdriver.Chrome, page: Path, fragment: str = "") -> None:
    browser.get_log("browser")  # drop what earlier tests left
    browser.get_log("performance")
    browser.get("about:blank")
    browser.get(page.as_uri() + fragment)
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.body.classList.contains('ready')")
    )


def _requests(browser: webdriver.Chrome) -> tuple[list[str], list[str]]:
    """``(urls requested, urls the browser blocked before sending)`` from the performance log."""
    sent: dict[str, str] = {}
    blocked: list[str] = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            sent[params["requestId"]] = params["request"]["url"]
        elif message["method"] == "Network.loadingFailed" and params.get("blockedReason"):
            blocked.append(params["requestId"])
    return list(sent.values()), [sent[r] for r in blocked if r in sent]


def _shown(browser: webdriver.Chrome) -> str:
    return browser.find_element(By.ID, "messages").text


def test_no_injected_script_runs_no_request_leaves_and_the_console_is_clean(
    browser: webdriver.Chrome, page: Path
) -> None:
    _open(browser, page)
    assert browser.execute_script("return window.__pwned") is None
    # Every thinking block and tool output opened, so all hostile content is in the document.
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    browser.execute_script("document.getElementById('more').click()")
    text = _shown(browser)
    assert "<script>window.__pwned" in text and "onerror=" in text  # shown as text
    assert browser.execute_script("return window.__pwned") is None
    assert browser.find_elements(By.CSS_SELECTOR, "#messages script, #messages iframe, #messages svg") == []
    urls, _blocked = _requests(browser)
    assert urls, "the performance log recorded nothing"
    leaving = [u for u in urls if not u.startswith(("file:", "data:"))]
    assert leaving == []
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []


def test_the_policy_refuses_a_script_and_a_request_the_page_did_not_bring(
    browser: webdriver.Chrome, page: Path
) -> None:
    _open(browser, page)
    browser.execute_script(
        "var s = document.createElement('script'); s.textContent = 'window.__probe = 1';"
        "document.body.appendChild(s);"
        "var i = document.createElement('img'); i.src = 'https://example.invalid/probe.png';"
        "document.body.appendChild(i);"
    )
    browser.execute_script("return 0")  # let the inserted elements be processed
    assert browser.execute_script("return window.__probe") is None
    violations = [e["message"] for e in browser.get_log("browser")]
    assert any("Content Security Policy" in m for m in violations), violations
    urls, blocked = _requests(browser)
    # Chromium logs the attempt, then blocks it before anything is sent: nothing leaves the page.
    assert [u for u in urls if u.startswith("http")] == blocked == ["https://example.invalid/probe.png"]


def test_branch_switching_search_filters_and_deep_links(browser: webdriver.Chrome, page: Path) -> None:
    _open(browser, page)
    # The current leaf's branch is shown first.
    assert "needle-beta" in _shown(browser) and "needle-alpha" not in _shown(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#tree .row")
    alpha = [r for r in rows if "needle-alpha" in r.text]
    assert len(alpha) == 1
    alpha[0].click()
    WebDriverWait(browser, 10).until(lambda d: "needle-alpha" in _shown(d))
    assert "needle-beta" not in _shown(browser)
    assert browser.current_url.endswith("#e-e0000006")
    assert "on-path" in browser.find_element(By.CSS_SELECTOR, "#tree .row.selected").get_attribute("class")
    # Search finds the other branch's text; choosing the hit switches back.
    box = browser.find_element(By.ID, "search")
    box.send_keys("needle-beta")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results .result-row"))
    hits = browser.find_elements(By.CSS_SELECTOR, "#results .result-row")
    assert len(hits) == 1 and browser.find_element(By.ID, "count").text == "1 match"
    hits[0].click()
    WebDriverWait(browser, 10).until(lambda d: "needle-beta" in _shown(d))
    assert "needle-alpha" not in _shown(browser)
    box.clear()
    box.send_keys(" ")
    # Filters hide tool calls and thinking in the view.
    assert browser.find_elements(By.CSS_SELECTOR, "#messages .tool-call")[0].is_displayed()
    browser.find_element(By.CSS_SELECTOR, "#checks input[value=tools]").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#messages .tool-call")[0].is_displayed()
    # The tree filter shows user messages only (and the current entry).
    rows_all = len(browser.find_elements(By.CSS_SELECTOR, "#tree .row"))
    browser.execute_script(
        "var m = document.getElementById('mode'); m.value = 'user'; m.dispatchEvent(new Event('change'))"
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "#tree .row")) < rows_all
    # A deep link opens its entry's branch.
    _open(browser, page, "#e-e0000006")
    assert "needle-alpha" in _shown(browser)
    target = browser.find_element(By.CSS_SELECTOR, "#messages .entry.target")
    assert target.get_attribute("id") == "e-e0000006"
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


MODERN = next((SHARED / "reference" / "samples-latest" / "pi-layout").rglob("*01a139df*.jsonl"))


def test_pi_16_page_links_context_edits_and_folds_system_prompts(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    target = tmp_path / "modern.html"
    target.write_bytes(render_export(load_session(MODERN, checksum=False), "html", whole_tree=True).data)
    _open(browser, target, "#e-14fa9a09")
    edit = browser.find_element(By.ID, "e-14fa9a09")
    assert "Replaces the content of entry 9212b653" in edit.text
    # The link inside the context edit goes to the entry it replaced (a tool result, shown in the message
    # whose call it answers), and that one says a later edit replaced it.
    edit.find_element(By.CSS_SELECTOR, 'a[href="#e-9212b653"]').click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("#e-9212b653"))
    shown = browser.find_element(By.CSS_SELECTOR, "#messages .entry.target")
    assert shown.get_attribute("id") == "e-079d116a"
    assert "Edited in the context later: entry 14fa9a09 replaced its content" in shown.text
    # System prompts are folded; hiding thinking leaves them in view.
    system = browser.find_elements(By.CSS_SELECTOR, "#messages details.system")
    assert system and all(d.get_attribute("open") is None for d in system)
    browser.find_element(By.CSS_SELECTOR, "#checks input[value=thinking]").click()
    assert system[0].is_displayed()
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []


@pytest.mark.parametrize("fragment", ["#%", "#e-%E0%A4%A", "#%zz"])
def test_a_fragment_that_does_not_decode_is_ignored(
    browser: webdriver.Chrome, page: Path, fragment: str
) -> None:
    # decodeURIComponent throws on these ("URI malformed"): before, the script stopped and the page
    # stayed empty (and never ready, so _open timed out).
    _open(browser, page, fragment)
    assert "needle-beta" in _shown(browser)  # the current branch, as without a fragment
    browser.execute_script("location.hash = '#e-%'")  # a malformed link followed after load
    browser.execute_script("return 0")
    assert "needle-beta" in _shown(browser)
    rows = [r for r in browser.find_elements(By.CSS_SELECTOR, "#tree .row") if "needle-alpha" in r.text]
    rows[0].click()  # the page still works
    WebDriverWait(browser, 10).until(lambda d: "needle-alpha" in _shown(d))
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
