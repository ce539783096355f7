"""The playground's page in headless Chromium (Debian's chromium and chromium-driver, Selenium),
driven as a user does: typing in the editors, clicking issues, sharing and saving."""

import json
import time
import pathlib
import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPOSITORY

TWEET = "$TweetModel"
SCREENSHOT = REPOSITORY / "docs" / "images" / "playground-twitter.png"


def chromium(*extra):
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000", *extra):
        options.add_argument(argument)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        options.binary_location = chromium
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


@pytest.fixture
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def wait_for(driver, condition, timeout=30):
    return WebDriverWait(driver, timeout).until(lambda _: condition())


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def type_into(driver, element_id, value):
    """Sets a textarea's text as typing does: the value, then an input event."""
    driver.execute_script(
        "const e = document.getElementById(arguments[0]); e.value = arguments[1];"
        "e.dispatchEvent(new Event('input', {bubbles: true}));", element_id, value)


def test_the_twitter_example_on_load_its_tests_and_a_screenshot(playground, browser):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    assert '"name": "Twitter API"' in text(browser, "output")
    assert browser.find_element(By.ID, "mappings").get_attribute("value").startswith("//")
    assert "no issues" in text(browser, "issues")
    wait_for(browser, lambda: "✔" in text(browser, "tests"))
    assert "✘" not in text(browser, "tests")
    assert "identifier" in text(browser, "explain")
    assert browser.find_element(By.ID, "save").get_attribute("hidden") is not None
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000


def test_a_bad_payload_an_issue_by_path_and_a_click_that_shows_the_rule(playground, browser, workspace):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    type_into(browser, "payload", json.dumps({"id_str": "1", "user": {"name": "Ann"}}))
    wait_for(browser, lambda: "$.text" in text(browser, "issues"))
    issue = next(li for li in browser.find_elements(By.CSS_SELECTOR, "#issues li") if "$.text" in li.text)
    assert "missing required value" in issue.text
    issue.click()
    line = int(issue.get_attribute("data-line"))
    selected = browser.execute_script(
        "const e = document.getElementById('mappings'); return e.value.slice(0, e.selectionStart).split('\\n').length;")
    assert selected == line
    source = (workspace / "contexts" / "twitter.mappings").read_text().split("\n")[line - 1]
    assert "message" in source or "text" in source


def test_an_edit_changes_the_output_and_a_broken_edit_marks_its_line(playground, browser, workspace):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    original = (workspace / "contexts" / "twitter.mappings").read_text()
    type_into(browser, "mappings", original.replace('"message": "text"', '"message": "id_str"', 1))
    wait_for(browser, lambda: '"message": "240859602684612608"' in text(browser, "output"))
    broken = original.replace('"@class": "TweetModel"', '"@class": "TweetModl"', 1)
    type_into(browser, "mappings", broken)
    wait_for(browser, lambda: 'unknown class "TweetModl"' in text(browser, "diagnostics"))
    line = original[: original.index('"@class": "TweetModel"')].count("\n") + 1
    # The gutter marks the diagnostic's line (and only lines that have one).
    marked = [element.get_attribute("textContent") for element in
              browser.find_elements(By.CSS_SELECTOR, "#mappings-gutter .marked")]
    diagnosed = {str(li.get_attribute("data-line")) for li in browser.find_elements(By.CSS_SELECTOR, "#diagnostics li")
                 if li.get_attribute("data-file") == "contexts/twitter.mappings"}
    assert str(line) in marked and set(marked) == diagnosed, (marked, diagnosed)
    # The last output stays, dimmed, while the files do not load; the tests say they did not run.
    assert '"message": "240859602684612608"' in text(browser, "output")
    assert "stale" in browser.find_element(By.ID, "output").get_attribute("class")
    assert "not run: the files do not load" in text(browser, "tests")
    # Nothing was written.
    assert (workspace / "contexts" / "twitter.mappings").read_text() == original


def test_share_gives_a_link_that_restores_the_edits(playground, browser):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    type_into(browser, "payload", json.dumps({"id_str": "7", "text": "shared", "user": {"name": "Bo"}}))
    wait_for(browser, lambda: '"shared"' in text(browser, "output"))
    browser.find_element(By.ID, "share").click()
    link = browser.find_element(By.ID, "share-link").get_attribute("value")
    assert "#" in link and "scrub" in text(browser, "share-box")
    browser.get("about:blank")
    browser.get(link)
    wait_for(browser, lambda: '"shared"' in text(browser, "output"))
    assert '"Bo"' in text(browser, "output")


def test_save_writes_the_edit_only_with_write(playground, browser, workspace):
    path = workspace / "contexts" / "twitter.mappings"
    original = path.read_text()
    server = playground("--context", TWEET, "--input", "twitter/tweet.json", "--write")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    edited = original.replace('"message": "text"', '"message": "full_text"', 1)
    type_into(browser, "mappings", edited)
    # The edit has run (tweet.json has no full_text: the message is missing) before Save.
    wait_for(browser, lambda: "$.full_text" in text(browser, "issues"))
    save = browser.find_element(By.ID, "save")
    assert save.get_attribute("hidden") is None
    save.click()
    wait_for(browser, lambda: "saved" in text(browser, "status"))
    assert path.read_text() == edited


def test_a_page_reached_by_another_name_is_refused(playground):
    """DNS rebinding, as a browser meets it: a name of another site that resolves to 127.0.0.1."""
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    driver = chromium("--host-resolver-rules=MAP rebound.example 127.0.0.1")
    try:
        driver.get("http://rebound.example:%d/" % server.port)
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "answers requests for 127.0.0.1:%d or localhost:%d" % (server.port, server.port) in body and "rebound.example" in body
        assert not driver.find_elements(By.ID, "mappings")
        driver.get("http://localhost:%d/" % server.port)
        wait_for(driver, lambda: '"240859602684612608"' in text(driver, "output"))
    finally:
        driver.quit()


def test_format_lays_the_payload_out_keeping_every_number_as_written(playground, browser):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    one_line = '{"id_str": "9", "text": "hi", "user": {"name": "Ann"}, "retweet_count": 18446744073709551617, "x": [1.50, {}]}'
    type_into(browser, "payload", one_line)
    wait_for(browser, lambda: '"hi"' in text(browser, "output"))
    browser.find_element(By.ID, "format-payload").click()
    laid_out = browser.find_element(By.ID, "payload").get_attribute("value")
    assert laid_out.count("\n") > 5, laid_out
    assert "18446744073709551617" in laid_out and "1.50" in laid_out and "{}" in laid_out, laid_out
    assert json.loads(laid_out) == json.loads(one_line)
    # Not JSON: left as it is, and said.
    type_into(browser, "payload", "{not json")
    browser.find_element(By.ID, "format-payload").click()
    assert browser.find_element(By.ID, "payload").get_attribute("value") == "{not json"
    assert "not JSON" in text(browser, "status")
    # The run the typing started (150 ms later) ends without taking the note away.
    time.sleep(1)
    assert "not JSON" in text(browser, "status")


def test_new_from_this_payload_infers_a_project_that_maps_it(playground, browser, workspace):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    browser.get(server.url)
    wait_for(browser, lambda: '"240859602684612608"' in text(browser, "output"))
    issue = {"id": 7, "html_url": "https://github.com/o/r/issues/7", "created_at": "2024-04-22T13:33:48Z",
             "user": {"login": "ann"}, "labels": [{"name": "bug"}], "closed_at": None}
    type_into(browser, "payload", json.dumps(issue))
    model = browser.find_element(By.ID, "new-model")
    model.clear()
    model.send_keys("Issue")
    browser.find_element(By.ID, "new-project").click()
    wait_for(browser, lambda: "contexts/Issue.mappings" in text(browser, "file"))
    wait_for(browser, lambda: '"htmlUrl": "https://github.com/o/r/issues/7"' in text(browser, "output"))
    assert browser.find_element(By.ID, "context").get_attribute("value") == "$Issue"
    wait_for(browser, lambda: "✔" in text(browser, "tests"))
    assert "✘" not in text(browser, "tests")
    assert "no issues" in text(browser, "issues")
    # An edit of the new project runs, in the page only: nothing was written.
    edited = browser.find_element(By.ID, "mappings").get_attribute("value").replace(
        '"htmlUrl": "html_url"', '"htmlUrl": "url"', 1)
    type_into(browser, "mappings", edited)
    wait_for(browser, lambda: "$.url" in text(browser, "issues"))
    assert not (workspace / "contexts" / "Issue.mappings").exists()
