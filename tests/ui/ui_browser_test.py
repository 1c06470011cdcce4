"""The web UI in a real headless Chromium (Debian's chromium, chromium-driver and python3-selenium),
one browser for everything: the experiments list, an experiment page with its trials table (sorted
by a click) and its charts (found by aria-label; parallel coordinates brushed with the mouse), a
running experiment growing without a reload, a trial page whose logs follow, and no console error.
Saves a screenshot of the experiment page to SCREENSHOT (CI keeps it).

    ui_browser_test.py SEARCHER_RUN SOURCE_DIR SCREENSHOT

Waits are on conditions with generous deadlines, never fixed sleeps: the machine may be loaded."""
import pathlib
import re
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from ui_fixture import DEADLINE, Server, Store, check, random_search

searcher_run, source, screenshot = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
started = time.monotonic()
store = Store(searcher_run, source)
driver = None
server = None
CHARTS = ["best so far", "learning curves", "hyperparameter importance", "rung occupancy",
          "parallel coordinates", "loss against x", "worker timeline"]
SLOTS = 3  # the finished experiment's --slots: its worker timeline has a lane each


def chart(label):
    return driver.find_element(By.CSS_SELECTOR, f'svg[aria-label="{label}"]')


def rows(table):
    return driver.find_elements(By.CSS_SELECTOR, f'table[aria-label="{table}"] tbody tr')


def until(condition, what):
    try:
        return WebDriverWait(driver, DEADLINE, poll_frequency=0.2).until(lambda d: condition())
    except Exception as e:  # a timeout, or the page changing under a lookup for too long
        raise SystemExit(f"ui_browser_test: timed out waiting for {what} ({type(e).__name__})")


def settled(fn):
    """fn() or None while the page is being redrawn (an element replaced under the lookup)."""
    try:
        return fn()
    except Exception:
        return None


try:
    # An adaptive ASHA search over x, finished (its losses (x-3)^2 + 10/steps), and a random
    # search left running: a new trial every ~1 s of training, 40 in all (it must outlast the
    # browser's start on an idle machine: the test ends it).
    done = random_search("ui-asha", 12, 9, 0.0, concurrent=3)
    done["searcher"] = {"name": "adaptive_asha", "metric": "loss", "smaller_is_better": True,
                        "max_trials": 12, "max_length": {"batches": 9}, "max_concurrent_trials": 3, "mode": "standard"}
    done_id = store.create(done, options=("--slots", SLOTS))
    running_id = store.create(random_search("ui-running", 40, 10, 0.1), detach=True)
    server = Server(searcher_run, store.env)

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1440,2400", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(DEADLINE)

    # ---- the list (opened with the token link, as printed) ----------------------------------------
    driver.get(f"{server.url}/#token={server.token}")
    until(lambda: len(rows("experiments")) == 2, "the two experiments listed")
    check(driver.execute_script("return sessionStorage.getItem('hpsearch-token')") == server.token,
          "the token is kept for the session")
    check("token" not in driver.current_url, f"and taken out of the address: {driver.current_url}")
    listed = {r.get_attribute("data-id"): r.text for r in rows("experiments")}
    check("ui-asha" in listed[str(done_id)] and "COMPLETED" in listed[str(done_id)], f"the list: {listed}")

    # ---- the finished experiment: trials table and charts -----------------------------------------
    driver.find_element(By.CSS_SELECTOR, f'tr[data-id="{done_id}"] a').click()
    until(lambda: len(rows("trials")) == 12, "the 12 trials in the table")
    until(lambda: all(settled(lambda: chart(label)) for label in CHARTS), f"the charts {CHARTS}")
    curves = driver.find_elements(By.CSS_SELECTOR, 'svg[aria-label="learning curves"] path.curve')
    check(len(curves) == 12, f"a learning curve per trial: {len(curves)}")
    check(len(driver.find_elements(By.CSS_SELECTOR, 'svg[aria-label="parallel coordinates"] path.pc-line')) == 12,
          "a line per trial in the parallel coordinates")
    lanes = driver.find_elements(By.CSS_SELECTOR, 'svg[aria-label="worker timeline"] rect.lane')
    check(sorted(int(lane.get_attribute("data-lane")) for lane in lanes) == list(range(SLOTS)),
          f"the worker timeline has a lane per slot ({SLOTS}): {len(lanes)}")
    launches = sum(1 for r in store.journal(done_id) if "launched" in r)
    spans = driver.find_elements(By.CSS_SELECTOR, 'svg[aria-label="worker timeline"] rect.span')
    check(len(spans) == launches, f"a bar per launch the journal recorded ({launches}): {len(spans)}")
    importance = chart("hyperparameter importance").text
    check("x" in importance, f"importance names x: {importance}")
    check("Spearman" in driver.find_element(By.XPATH, "//section[h2='Hyperparameter importance']").text,
          "the importance method is named")
    best = server.get(f"/api/v1/experiments/{done_id}/trials?sortBy=best&limit=1")["trials"][0]
    driver.find_element(By.XPATH, "//table[@aria-label='trials']//th/button[text()='Best']").click()
    until(lambda: settled(lambda: rows("trials")[0].find_element(By.TAG_NAME, "td").text) == str(best["id"]),
          f"sorting by Best puts trial {best['id']} first")
    # Brushing: a drag along the x axis, from its top (the largest x) to its middle, selects the
    # upper half of its range: the line of the largest x is kept, that of the smallest dimmed.
    strip = driver.find_element(By.CSS_SELECTOR, 'svg[aria-label="parallel coordinates"] rect[data-axis="x"]')
    half = strip.size["height"] / 2
    ActionChains(driver).move_to_element_with_offset(strip, 0, -half + 2).click_and_hold() \
        .move_by_offset(0, half - 2).release().perform()
    until(lambda: "selected by brushing" in driver.find_element(By.XPATH, "//section[h2='Parallel coordinates']").text,
          "the brushed selection")
    dim = len(driver.find_elements(By.CSS_SELECTOR, 'svg[aria-label="parallel coordinates"] path.pc-line.dim'))
    check(0 < dim < 12, f"brushing dims the lines outside the band: {dim} of 12")
    strip.click()  # a click clears the brush
    until(lambda: not driver.find_elements(By.CSS_SELECTOR, "path.pc-line.dim"), "the brush cleared")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(screenshot))

    # ---- the running experiment grows without a reload -------------------------------------------
    driver.execute_script("window.location.hash = arguments[0]", f"#/experiments/{running_id}")
    driver.execute_script("window.__sameDocument = true")

    def trials_shown():
        text = settled(lambda: driver.find_element(By.CSS_SELECTOR, ".pager").text) or ""
        found = re.search(r" of (\d+)", text)  # "1–2 of 2"
        return int(found.group(1)) if found else None

    first = until(trials_shown, "the running experiment's trials")
    until(lambda: (trials_shown() or 0) > first, f"more than {first} trials without a reload")
    grown = trials_shown()
    check(driver.execute_script("return window.__sameDocument === true"), "the page was not reloaded")
    check(len(driver.find_elements(By.CSS_SELECTOR, 'svg[aria-label="learning curves"]')) == 1, "charts redrawn")

    # ---- a trial of it: metrics and logs that follow ---------------------------------------------
    trial = server.get(f"/api/v1/experiments/{running_id}/trials?limit=1")["trials"][0]["id"]
    driver.execute_script("window.location.hash = arguments[0]", f"#/trials/{trial}")
    logs = lambda: settled(lambda: driver.find_element(By.CSS_SELECTOR, 'pre[aria-label="logs"]').text) or ""
    until(lambda: f"trial {trial} of experiment {running_id} starts at step 0" in logs(), "the trial's log")
    until(lambda: f"trial {trial} done" in logs(), "the log followed to the trial's end")
    until(lambda: settled(lambda: chart("training metrics")) and settled(lambda: chart("validation metrics")),
          "the trial's metrics by group")
    check(len(rows("hyperparameters")) == 2, "its hyperparameters: x and sleep")
    check(driver.execute_script("return window.__sameDocument === true"), "still the same document")

    # ---- no console errors -------------------------------------------------------------------------
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    check(not errors, f"console errors: {errors}")
    print(f"ui_browser_test: ok in {time.monotonic() - started:.1f} s (running experiment: {first} -> {grown} "
          f"trials); screenshot {screenshot}")
finally:
    if driver is not None:
        driver.quit()
    if server is not None:
        server.stop()
    try:
        store.run("kill", running_id)
    except BaseException:
        pass
    store.cleanup()
