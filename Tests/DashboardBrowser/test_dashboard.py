"""`ferry dashboard` in a real browser: Debian's chromium, headless, driven by Selenium (chromium-driver).

Runs the real `ferry` binary (dashboard and workers) against the PostgreSQL in $FERRY_BROWSER_DATABASE_URL (migrated
here). A screenshot of each page goes to $FERRY_BROWSER_ARTIFACTS. Started by scripts/browser-test.sh.
"""
import http.server
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

FERRY = os.environ["FERRY_BIN"]
DATABASE = os.environ["FERRY_BROWSER_DATABASE_URL"]
ARTIFACTS = os.environ.get("FERRY_BROWSER_ARTIFACTS", ".build/artifacts/dashboard")
TOKEN = "browser-test-token-0123456789abcdef"


def ferry(*args, stdin=None, env=None):
    environment = dict(os.environ, FERRY_DATABASE_URL=DATABASE, **(env or {}))
    return subprocess.run([FERRY, *args], input=stdin, capture_output=True, text=True, env=environment, timeout=120)


class Background:
    """A long-running `ferry` process (dashboard or worker), its output in a log file."""

    def __init__(self, *args, env=None):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="ferry-browser-", suffix=".log", delete=False)
        environment = dict(os.environ, FERRY_DATABASE_URL=DATABASE, **(env or {}))
        self.process = subprocess.Popen([FERRY, *args], stdout=self.log, stderr=self.log, env=environment)

    def text(self):
        with open(self.log.name) as handle:
            return handle.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        os.unlink(self.log.name)


def dashboard(*args, env=None):
    process = Background("dashboard", "--listen", "127.0.0.1:0", "--base-path", "/ferry", *args, env=env)
    deadline = time.time() + 30
    while time.time() < deadline:
        match = re.search(r"ferry dashboard listening on (\S+)", process.text())
        if match:
            return process, match.group(1).rstrip("/")
        assert process.process.poll() is None, process.text()
        time.sleep(0.1)
    raise AssertionError("dashboard did not start: " + process.text())


def eventually(condition, what, timeout=60, detail=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if condition():
                return
        except StaleElementReferenceException:
            pass  # the live part was redrawn between finding an element and reading it: look again
        time.sleep(0.2)
    # What the database and the processes say, so a failure in CI explains itself.
    raise AssertionError("timed out waiting for " + what + ("\n" + detail() if detail else ""))


def job_states(batch):
    out = ferry("status", "--batch", batch, "--json")
    assert out.returncode == 0, out.stderr
    return {row["job_id"]: row["state"] for row in json.loads(out.stdout)["jobs"]}


def enqueue(batch, queue, count, handler_hint):
    lines = "\n".join(
        json.dumps({"kind": "fetch", "source": f"https://example.com/{handler_hint}-{i}.jpg", "to": f"/srv/in/{i}.jpg",
                    "queue": queue, "batch": batch, "max_attempts": 1})
        for i in range(count))
    out = ferry("enqueue", "--from", "-", stdin=lines)
    assert out.returncode == 0, out.stderr


@pytest.fixture(scope="module")
def browser():
    assert ferry("migrate").returncode == 0
    os.makedirs(ARTIFACTS, exist_ok=True)
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def shot(driver, name):
    driver.save_screenshot(os.path.join(ARTIFACTS, name + ".png"))


def test_progress_advances_and_retry_in_the_browser(browser):
    enqueue("moving", "browser-slow", 8, "slow")
    enqueue("broken", "browser-fail", 1, "broken")
    failer = Background("worker", "--name", "failer", "--handler", "fail", "--queues", "browser-fail", "--poll-interval", "0.2")
    eventually(lambda: set(job_states("broken").values()) == {"failed"}, "the broken job to fail")
    failer.stop()

    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        browser.get(root + "/")
        assert "Overview" in browser.title
        shot(browser, "overview")

        # A running batch: its progress (jobs done) advances on the page by itself while a real worker runs it.
        browser.get(root + "/batches/moving")
        # 8 jobs one after the other, 700 ms each: several live redraws fall between the first and the last.
        worker = Background("worker", "--name", "mover", "--handler", "sleep:700", "--queues", "browser-slow",
                            "--concurrency", "1", "--poll-interval", "0.2")
        try:
            def succeeded_on_page():
                cells = browser.find_elements(By.CSS_SELECTOR, "#live table tr:nth-child(2) td")
                # A redraw may be half done: a cell without a number counts as not read yet.
                text = cells[5].text.strip() if len(cells) > 5 else ""
                return int(text) if text.isdigit() else 0
            eventually(lambda: 0 < succeeded_on_page() < 8, "the page to show some jobs done")
            shot(browser, "batch-running")
            eventually(lambda: succeeded_on_page() == 8, "the page to show the batch done",
                       detail=lambda: "states: %s\npage: %s\nworker log:\n%s\ndashboard log:\n%s" % (
                           sorted(job_states("moving").values()), browser.find_element(By.ID, "live").text[:2000],
                           worker.text()[-4000:], process.text()[-4000:]))
            shot(browser, "batch-done")
        finally:
            worker.stop()

        # Log in with the token, open the failed job, click Retry: queued, then a real worker makes it succeed.
        browser.get(root + "/failed")
        shot(browser, "failed")
        browser.find_element(By.NAME, "token").send_keys(TOKEN)
        browser.find_element(By.XPATH, "//form[contains(@action,'/login')]//button").click()
        broken = next(iter(job_states("broken")))
        browser.get(root + "/jobs/" + broken)
        shot(browser, "job-failed")
        browser.find_element(By.XPATH, "//button[text()='Retry']").click()
        eventually(lambda: job_states("broken")[broken] == "queued", "the retried job to be queued")
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: "queued" in d.find_element(By.ID, "live").text)
        shot(browser, "job-queued")
        runner = Background("worker", "--name", "runner", "--handler", "noop", "--queues", "browser-fail", "--poll-interval", "0.2")
        try:
            WebDriverWait(browser, 60, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: "succeeded" in d.find_element(By.ID, "live").text.split("status")[1][:40]
                                             if "status" in d.find_element(By.ID, "live").text else False)
            assert job_states("broken")[broken] == "succeeded"
            shot(browser, "job-succeeded")
        finally:
            runner.stop()
        browser.get(root + "/workers")
        shot(browser, "workers")
    finally:
        process.stop()


def test_read_only_has_no_buttons_and_refuses_post(browser):
    process, root = dashboard("--read-only")
    try:
        broken = next(iter(job_states("broken")), None)
        browser.get(root + "/batches/moving")
        assert browser.find_elements(By.TAG_NAME, "button") == [] or all(
            b.text == "Filter" for b in browser.find_elements(By.TAG_NAME, "button"))
        assert browser.find_elements(By.CSS_SELECTOR, "button.action") == []
        shot(browser, "read-only")
        request = urllib.request.Request(root + "/batches/moving/retry", data=b"", method="POST",
                                         headers={"Authorization": "Bearer " + TOKEN})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403
    finally:
        process.stop()


def test_wrong_token_is_refused(browser):
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        browser.delete_all_cookies()
        browser.get(root + "/")
        browser.find_element(By.NAME, "token").send_keys("not-the-token")
        browser.find_element(By.XPATH, "//form[contains(@action,'/login')]//button").click()
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: "wrong token" in d.page_source)
        shot(browser, "wrong-token")
        assert browser.get_cookie("ferry_session") is None
    finally:
        process.stop()


class Neighbour:
    """An attacker's page on another port of the dashboard's host (same site, another origin): it sets its own
    ferry_csrf cookie for the host with a narrower path than the dashboard's and auto-submits a cancel form with
    the same value, as the security review's reproduction did."""

    def __init__(self, action, planted):
        page = f"""<!doctype html><html><body>
<form id="attack" method="post" action="{action}"><input type="hidden" name="csrf" value="{planted}"></form>
<script>
document.cookie = "ferry_csrf={planted}; path=/ferry/jobs";
document.getElementById("attack").submit();
</script></body></html>""".encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_same_site_neighbour_cannot_cancel(browser):
    enqueue("target", "browser-idle", 1, "target")
    target = next(iter(job_states("target")))
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    neighbour = None
    try:
        # The operator logs in.
        browser.delete_all_cookies()
        browser.get(root + "/")
        browser.find_element(By.NAME, "token").send_keys(TOKEN)
        browser.find_element(By.XPATH, "//form[contains(@action,'/login')]//button").click()
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "logout"))

        # ... and opens the neighbour's page, which posts a cancel with its planted cookie and field.
        planted = "ab" * 32
        neighbour = Neighbour(f"{root}/jobs/{target}/cancel", planted)
        browser.get(neighbour.url)
        WebDriverWait(browser, 30).until(lambda d: d.current_url.startswith(root + "/jobs/"))
        WebDriverWait(browser, 30).until(lambda d: "refused" in d.page_source)
        shot(browser, "neighbour-refused")
        # The attack was real: the planted cookie went to the dashboard along with the session.
        assert any(c["name"] == "ferry_csrf" and c["value"] == planted for c in browser.get_cookies()), browser.get_cookies()
        time.sleep(1)
        assert job_states("target")[target] == "queued", "the neighbour's post cancelled the job"

        # The operator's own Cancel button on the job's page still works.
        browser.get(root + "/jobs/" + target)
        browser.find_element(By.XPATH, "//button[text()='Cancel']").click()
        eventually(lambda: job_states("target")[target] == "cancelled", "the operator's cancel")
        shot(browser, "operator-cancelled")
    finally:
        if neighbour:
            neighbour.stop()
        process.stop()


def login(browser, root):
    browser.delete_all_cookies()
    browser.get(root + "/")
    browser.find_element(By.NAME, "token").send_keys(TOKEN)
    browser.find_element(By.XPATH, "//form[contains(@action,'/login')]//button").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "logout"))
    assert browser.find_element(By.ID, "logged-in").text == "logged in"


def test_group_retry_requeues_the_whole_group(browser):
    enqueue("grouped", "browser-group", 5, "grouped")
    failer = Background("worker", "--name", "group-failer", "--handler", "fail", "--queues", "browser-group", "--poll-interval", "0.2")
    try:
        eventually(lambda: set(job_states("grouped").values()) == {"failed"}, "the grouped jobs to fail")
    finally:
        failer.stop()
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        login(browser, root)
        browser.get(root + "/failed")
        shot(browser, "failed-groups")
        # One group for the five, with its count, and one Retry group button for it.
        rows = [r for r in browser.find_elements(By.CSS_SELECTOR, "tr[id^='group-']") if "scripted" in r.text]
        assert len(rows) == 1, [r.text for r in rows]
        assert int(rows[0].find_element(By.CLASS_NAME, "group-count").text) >= 5
        count = int(rows[0].find_element(By.CLASS_NAME, "group-count").text)
        rows[0].find_element(By.XPATH, ".//button[text()='Retry group']").click()
        # It asks first, naming the count; nothing is queued until the confirmation's button.
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#confirm .question"))
        question = browser.find_element(By.CSS_SELECTOR, "#confirm .question").text
        assert question.startswith(f"Retry {count} failed, cancelled or discarded jobs of the group"), question
        shot(browser, "failed-group-confirm")
        confirm(browser)
        eventually(lambda: set(job_states("grouped").values()) == {"queued"}, "the whole group to be queued")
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "flash"))
        assert browser.find_element(By.ID, "flash").text == f"{count} jobs requeued"
        shot(browser, "failed-group-retried")
    finally:
        process.stop()


def confirm(browser):
    """Clicks the confirmation's button once its page has loaded (a bulk action asks first, naming its count)."""
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "confirm-button"))
    browser.find_element(By.ID, "confirm-button").click()


def click_live(browser, by, selector):
    """Clicks an element of the live part of the page, found again if a live refresh replaced it meanwhile."""
    def attempt(driver):
        driver.find_element(by, selector).click()
        return True
    WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(attempt)


def test_bulk_actions_on_a_selection_and_a_filter(browser):
    # Six queued jobs on a queue no worker serves: select one and cancel it, then cancel every job the filter
    # (status queued, text "bulk-") matches, then retry every cancelled one: each an append per job by the dashboard.
    enqueue("bulk", "browser-bulk", 6, "bulk")
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        login(browser, root)
        browser.get(root + "/batches/bulk?status=queued")
        boxes = browser.find_elements(By.CSS_SELECTOR, "input[name='job'][form='bulk']")
        assert len(boxes) == 6
        chosen = boxes[0].get_attribute("value")
        click_live(browser, By.CSS_SELECTOR, f"input[name='job'][value='{chosen}']")
        click_live(browser, By.XPATH, "//button[text()='Cancel selected']")
        confirm(browser)
        eventually(lambda: job_states("bulk")[chosen] == "cancelled", "the selected job to be cancelled")
        assert sorted(job_states("bulk").values()).count("queued") == 5
        browser.get(root + "/batches/bulk?status=queued&q=bulk-")
        shot(browser, "bulk-filter")
        click_live(browser, By.XPATH, "//button[text()='Cancel all']")
        confirm(browser)
        eventually(lambda: set(job_states("bulk").values()) == {"cancelled"}, "every queued job to be cancelled")
        WebDriverWait(browser, 30).until(lambda d: "status=queued" in d.current_url)
        browser.get(root + "/batches/bulk?status=cancelled")
        click_live(browser, By.CSS_SELECTOR, "input.select-all")
        # A live refresh may replace the boxes between finding and reading them (their checks survive it): read again.
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: all(box.is_selected() for box in d.find_elements(By.CSS_SELECTOR, "input[name='job'][form='bulk']")))
        click_live(browser, By.XPATH, "//button[text()='Retry selected']")
        confirm(browser)
        eventually(lambda: set(job_states("bulk").values()) == {"queued"}, "every selected job to be queued again")
    finally:
        process.stop()


def test_search_from_the_overview(browser):
    enqueue("searchable", "browser-search", 12, "findme")
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        browser.get(root + "/")
        box = browser.find_element(By.ID, "search-box")
        box.send_keys("FINDME-1")
        box.submit()
        WebDriverWait(browser, 30).until(lambda d: "/ferry/search" in d.current_url)
        rows = browser.find_elements(By.XPATH, "//tr[td/a[contains(@href,'/ferry/jobs/')]]")
        # findme-1 and findme-10, -11: text anywhere in the source, case-insensitive.
        assert sorted(r.find_element(By.XPATH, "./td[4]").text for r in rows) == [
            f"https://example.com/findme-{i}.jpg" for i in (1, 10, 11)], [r.text for r in rows]
        assert "searchable" in rows[0].text
        shot(browser, "search")
    finally:
        process.stop()


def test_queue_pause_and_resume_from_the_page(browser):
    enqueue("paused-work", "browser-pause", 1, "pause")

    def paused():
        out = ferry("queue", "list", "--json")
        assert out.returncode == 0, out.stderr
        return {row["queue"]: row for row in json.loads(out.stdout)}.get("browser-pause", {}).get("paused")

    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        login(browser, root)
        browser.get(root + "/queues")
        row = browser.find_element(By.ID, "queue-browser-pause")
        row.find_element(By.NAME, "reason").send_keys("browser maintenance")
        row.find_element(By.XPATH, ".//button[text()='Pause']").click()
        eventually(lambda: paused() is True, "the queue to be paused")
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: "browser maintenance" in d.find_element(By.ID, "queue-browser-pause").text)
        shot(browser, "queues-paused")
        # The overview's paused badge leads to the queues page.
        browser.get(root + "/")
        browser.find_element(By.XPATH, "//a[text()='paused']").click()
        WebDriverWait(browser, 30).until(lambda d: d.current_url.endswith("/ferry/queues"))
        browser.find_element(By.ID, "queue-browser-pause").find_element(By.XPATH, ".//button[text()='Resume']").click()
        eventually(lambda: paused() is False, "the queue to be resumed")
        shot(browser, "queues")
    finally:
        process.stop()


def test_group_discard_asks_then_says_what_it_did(browser):
    enqueue("discardable", "browser-discard", 3, "discard")
    failer = Background("worker", "--name", "discard-failer", "--handler", "fail", "--queues", "browser-discard", "--poll-interval", "0.2")
    try:
        eventually(lambda: set(job_states("discardable").values()) == {"failed"}, "the jobs to fail")
    finally:
        failer.stop()
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        login(browser, root)
        browser.get(root + "/failed")
        rows = [r for r in browser.find_elements(By.CSS_SELECTOR, "tr[id^='group-']") if "scripted" in r.text]
        assert len(rows) == 1, [r.text for r in rows]
        count = int(rows[0].find_element(By.CLASS_NAME, "group-count").text)
        assert count >= 3
        rows[0].find_element(By.XPATH, ".//button[text()='Discard group']").click()
        # A confirmation naming the count; nothing is discarded until its button.
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#confirm .question"))
        question = browser.find_element(By.CSS_SELECTOR, "#confirm .question").text
        assert question.startswith(f"Discard {count}"), question
        assert set(job_states("discardable").values()) == {"failed"}
        shot(browser, "failed-group-discard-confirm")
        confirm(browser)
        eventually(lambda: set(job_states("discardable").values()) == {"discarded"}, "the group to be discarded")
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "flash"))
        assert browser.find_element(By.ID, "flash").text == f"{count} jobs discarded"
        shot(browser, "failed-group-discarded")
    finally:
        process.stop()


def test_search_with_spaces_and_by_error_text(browser):
    lines = "\n".join(json.dumps({"kind": "fetch", "source": f"https://example.com/cafe-{i}.jpg",
                                  "to": f"/srv/in/Café de Flore {i}.jpg", "queue": "browser-spaces", "batch": "spaces",
                                  "max_attempts": 1}) for i in range(2))
    out = ferry("enqueue", "--from", "-", stdin=lines)
    assert out.returncode == 0, out.stderr
    enqueue("erring", "browser-erring", 1, "erring")
    failer = Background("worker", "--name", "erring-failer", "--handler", "fail", "--queues", "browser-erring", "--poll-interval", "0.2")
    try:
        eventually(lambda: set(job_states("erring").values()) == {"failed"}, "the job to fail")
    finally:
        failer.stop()
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        # The form sends the spaces as '+': the dashboard decodes them.
        browser.get(root + "/")
        box = browser.find_element(By.ID, "search-box")
        box.send_keys("Café de Flore")
        box.submit()
        WebDriverWait(browser, 30).until(lambda d: "/ferry/search" in d.current_url)
        assert "+" in browser.current_url or "%20" in browser.current_url, browser.current_url
        rows = browser.find_elements(By.XPATH, "//tr[td/a[contains(@href,'/ferry/jobs/')]]")
        assert len(rows) == 2 and all("Café de Flore" in r.text for r in rows), [r.text for r in rows]
        shot(browser, "search-spaces")
        # Words of the last error find the job that failed with it.
        browser.get(root + "/")
        box = browser.find_element(By.ID, "search-box")
        box.send_keys("permanent failure")
        box.submit()
        WebDriverWait(browser, 30).until(lambda d: "/ferry/search" in d.current_url)
        erring = next(iter(job_states("erring")))
        text = browser.find_element(By.ID, "live").text
        assert erring in text, text
        shot(browser, "search-error-text")
    finally:
        process.stop()


def test_viewer_behind_the_sign_in_proxy_sees_no_buttons(browser):
    process, root = dashboard("--auth-proxy-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1",
                              "--operator", "olive")
    try:
        browser.delete_all_cookies()
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Forwarded-User": "vera"}})
        for path in ["/", "/failed", "/queues", "/schedules", "/batches/grouped", "/batches/discardable?status=discarded"]:
            browser.get(root + path)
            assert "vera (viewer)" in browser.find_element(By.ID, "logged-in").text
            buttons = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "button.action, #live form[method='post'] button")]
            assert buttons == [], f"{path}: a viewer sees {buttons}"
        shot(browser, "viewer")
        # The operator named on the command line gets them.
        browser.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Forwarded-User": "olive"}})
        browser.get(root + "/queues")
        assert browser.find_elements(By.CSS_SELECTOR, "button.action"), "the operator sees the queue buttons"
    finally:
        browser.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {}})
        process.stop()


def test_trends_at_an_hour_and_a_week(browser):
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    try:
        browser.get(root + "/")
        browser.find_element(By.ID, "trends-link").click()
        WebDriverWait(browser, 30).until(lambda d: "/ferry/trends" in d.current_url)
        # An hour by the minute: jobs finished by the earlier tests, with a value axis in jobs/min and times in UTC.
        jobs = browser.find_element(By.ID, "trend-jobs")
        assert "in the last hour" in jobs.text, jobs.text
        labels = [t.text for t in jobs.find_elements(By.CSS_SELECTOR, "text.y-label")]
        assert labels[0] == "0/min" and all(l.endswith("/min") for l in labels), labels
        assert all(t.text.endswith("UTC") for t in jobs.find_elements(By.CSS_SELECTOR, "text.x-label"))
        assert len(jobs.find_elements(By.TAG_NAME, "rect")) > 0, "bars for the jobs that finished"
        assert browser.find_element(By.ID, "trend-bytes").find_elements(By.CSS_SELECTOR, "text.y-label")[0].text == "0 B/min"
        assert browser.find_element(By.ID, "trend-failures").find_elements(By.CSS_SELECTOR, "text.y-label")[-1].text == "100 %"
        shot(browser, "trends-1h")
        # A week by the hour, then filtered to one queue with the menu: the range is kept.
        browser.find_element(By.ID, "range-7d").click()
        WebDriverWait(browser, 30).until(lambda d: "range=7d" in d.current_url)
        jobs = browser.find_element(By.ID, "trend-jobs")
        assert "in the last 7 days" in jobs.text and jobs.find_elements(By.CSS_SELECTOR, "text.y-label")[0].text == "0/h"
        dates = [t.text for t in jobs.find_elements(By.CSS_SELECTOR, "text.x-label")]
        assert len(dates) == 3 and all(re.match(r"\d\d-\d\d \d\d:00 UTC", d) for d in dates), dates
        shot(browser, "trends-7d")
        from selenium.webdriver.support.ui import Select
        Select(browser.find_element(By.NAME, "queue")).select_by_value("browser-erring")
        browser.find_element(By.XPATH, "//form[contains(@class,'trend-filter')]//button").click()
        WebDriverWait(browser, 30).until(lambda d: "queue=browser-erring" in d.current_url)
        assert "range=7d" in browser.current_url
        title = browser.find_element(By.ID, "trend-failures").text
        assert "100.0 % of 1 job failed" in title, title
        shot(browser, "trends-7d-queue")
    finally:
        process.stop()


def test_no_horizontal_scroll_at_390_px(browser):
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        login(browser, root)
        job = next(iter(job_states("grouped")))
        for path in ["/", "/batches", "/batches/grouped", "/batches/grouped?sort=status", "/failed", "/queues", "/schedules", "/accounts",
                     "/workers", "/trends", "/trends?range=7d", "/jobs/" + job]:
            browser.get(root + path)
            width = browser.execute_script("return document.documentElement.scrollWidth")
            inner = browser.execute_script("return window.innerWidth")
            assert inner == 390, inner
            assert width <= 390, f"{path} is {width} px wide at 390 px"
            # Every action button is on screen, not beyond the edge of a table that scrolls sideways.
            offscreen = browser.execute_script(
                "return Array.from(document.querySelectorAll('button.action')).filter(function(b){"
                " var r = b.getBoundingClientRect(); return r.width > 0 && (r.left < 0 || r.right > window.innerWidth);"
                "}).map(function(b){ return b.textContent; });")
            assert offscreen == [], f"{path}: buttons off-screen at 390 px: {offscreen}"
            # ... and clickable: scrolled to, the point at its centre is the button itself, not something over it
            # (folded jobs of a failure group unfolded first, as the operator would).
            hidden = browser.execute_script(
                "document.querySelectorAll('details').forEach(function(d){ d.open = true; });"
                "return Array.from(document.querySelectorAll('button.action')).filter(function(b){"
                " b.scrollIntoView({block: 'center'}); var r = b.getBoundingClientRect();"
                " if (r.width === 0) return false;"
                " var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                " return !(hit === b || b.contains(hit));"
                "}).map(function(b){ var r = b.getBoundingClientRect();"
                " var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                " return b.textContent + ' under ' + (hit ? hit.tagName + '.' + hit.className + ' ' + (hit.textContent || '').slice(0, 40) : 'nothing')"
                " + ' at ' + Math.round(r.left) + ',' + Math.round(r.top); });")
            assert hidden == [], f"{path}: buttons covered or not clickable at 390 px: {hidden}"
        browser.get(root + "/batches/grouped")
        shot(browser, "mobile-batch")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        process.stop()

def test_schedule_run_now_accounts_and_workers_pages(browser):
    """Run now on the Schedules page makes a worker fire one run at once; Accounts says what to run to fix an
    account; Workers shows each worker's release and the jobs it runs."""
    key = {"FERRY_SECRET_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}
    added = ferry("schedule", "add", "browser-nightly", "--every", "1d", "--",
                  "fetch", "https://example.com/nightly.jpg", "--to", "/srv/nightly/", "--queue", "browser-sched")
    assert added.returncode == 0, added.stderr
    account = ferry("account", "add", "browser-box", "--provider", "dropbox", "--app-key", "k", "--no-verify", env=key)
    assert account.returncode == 0, account.stderr
    # Fires schedules only (its queue has no handler work): an hour between looks, so only Run now's
    # notification can make it fire in time.
    scheduler = Background("worker", "--name", "browser-scheduler", "--handler", "noop", "--queues", "browser-sched-none",
                           "--schedule-interval", "3600", "--poll-interval", "0.5")
    mover = Background("worker", "--name", "browser-mover", "--handler", "sleep:60000", "--queues", "browser-sched",
                       "--no-schedules", "--poll-interval", "0.2")
    process, root = dashboard(env={"FERRY_DASHBOARD_TOKEN": TOKEN})
    job = None
    try:
        login(browser, root)
        browser.get(root + "/schedules")
        row = browser.find_element(By.ID, "schedule-browser-nightly")
        row.find_element(By.XPATH, ".//button[text()='Run now']").click()

        def run_job():
            out = ferry("schedule", "show", "browser-nightly", "--json")
            assert out.returncode == 0, out.stderr
            runs = json.loads(out.stdout)["runs"]
            run = next((r for r in runs if r["manual"] and r["job_id"]), None)
            if run:
                assert run["worker"] == "browser-scheduler", run
            return run and run["job_id"]

        eventually(lambda: run_job() is not None, "a worker to fire the requested run", timeout=60)
        job = run_job()
        eventually(lambda: ferry("status", job, "--json").returncode == 0
                   and json.loads(ferry("status", job, "--json").stdout)["state"] == "running", "the run's job to start")
        browser.get(root + "/schedules")
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: job[:8] in d.find_element(By.ID, "schedule-browser-nightly").text)
        shot(browser, "schedules")

        browser.get(root + "/accounts")
        text = browser.find_element(By.TAG_NAME, "body").text
        assert "browser-box" in text and "ferry account login browser-box" in text, text
        shot(browser, "accounts")

        browser.get(root + "/workers")
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: job[:8] in d.find_element(By.TAG_NAME, "body").text)
        version = ferry("--version").stdout.split()[1]
        text = browser.find_element(By.TAG_NAME, "body").text
        assert version in text and "browser-scheduler" in text, text
        shot(browser, "workers")
    finally:
        if job:
            ferry("cancel", job)
        process.stop()
        mover.stop()
        scheduler.stop()
