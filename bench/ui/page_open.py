"""How long the web UI's experiment page takes to open in headless Chromium (docs/ui.md,
"Scale"): `searcher-run ui --dir DIR` over a simulation's --out directory, the page loaded
afresh RUNS times; each time, the milliseconds from the navigation's start (performance.now())
until the trials table shows its first page and every chart is drawn. Prints the median and
the runs.

    page_open.py SEARCHER_RUN DIR [RUNS]

Make DIR with e.g. (10,000 trials of ASHA on MF-Branin):
    sed -e 's/max_trials: 200/max_trials: 10000/' examples/branin_asha.yaml > /tmp/asha10k.yaml
    searcher-sim run --config /tmp/asha10k.yaml --workload mf-branin --workers 16 --out DIR"""
import re
import statistics
import subprocess
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

searcher_run, directory = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
CHARTS = ["best so far", "learning curves", "hyperparameter importance", "rung occupancy",
          "parallel coordinates"]
# The worker timeline, or for a trace from before the trace recorded workers, the trial timeline.
TIMELINE = "(document.querySelector('svg[aria-label=\"worker timeline\"]') || document.querySelector('svg[aria-label=\"trial timeline\"]'))"

server = subprocess.Popen([searcher_run, "ui", "--port", "0", "--dir", directory], stdout=subprocess.PIPE, text=True)
url = None
while url is None:
    line = server.stdout.readline()
    if not line:
        sys.exit("page_open: searcher-run ui ended")
    found = re.search(r"open (http://127\.0\.0\.1:\d+)/", line)
    url = found.group(1) if found else None
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1440,2400"):
    options.add_argument(arg)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
ready = ("return document.querySelectorAll('table[aria-label=\"trials\"] tbody tr').length > 0 && "
         + " && ".join(f"!!document.querySelector('svg[aria-label=\"{c}\"]')" for c in CHARTS)
         + f" && !!{TIMELINE}"
         + " ? performance.now() : null")
times = []
try:
    for run in range(runs):
        driver.get("about:blank")
        driver.get(f"{url}/#/experiments/1")
        times.append(WebDriverWait(driver, 300, poll_frequency=0.02).until(lambda d: d.execute_script(ready)))
    listed = []
    for run in range(runs):
        driver.get("about:blank")
        driver.get(f"{url}/#/")
        listed.append(WebDriverWait(driver, 300, poll_frequency=0.02).until(lambda d: d.execute_script(
            "return document.querySelectorAll('table[aria-label=\"experiments\"] tbody tr[data-id]').length"
            " ? performance.now() : null")))
finally:
    driver.quit()
    server.terminate()
    server.wait()
print(f"experiment page: median {statistics.median(times):.0f} ms over {runs} loads: "
      + ", ".join(f"{t:.0f}" for t in times))
print(f"experiments list: median {statistics.median(listed):.0f} ms over {runs} loads: "
      + ", ".join(f"{t:.0f}" for t in listed))
