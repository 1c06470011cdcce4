"""The trial environment is one declared table (runner/include/hpsearch/runner/trial_environment.hpp):

- docs/runner.md's environment table is exactly what `searcher-run help environment` prints
  (scripts/update_environment_table.py pastes it);
- runner/src names no HPSEARCH_ variable outside the table (the compile definitions that
  runner/CMakeLists.txt passes are macros, not variables);
- the Python side (python/determined/**) reads only names in the table.

    trial_environment_test.py SEARCHER_RUN SOURCE_DIR
"""
import pathlib
import re
import subprocess
import sys

searcher_run, source = sys.argv[1], pathlib.Path(sys.argv[2])
sys.path.insert(0, str(source / "scripts"))
from update_environment_table import BEGIN, END  # noqa: E402

NAME = re.compile(r"HPSEARCH_[A-Z][A-Z0-9_]*")
failures = []

table = subprocess.run([searcher_run, "help", "environment"], capture_output=True, text=True, check=True).stdout
names = set(re.findall(r"^\| `(HPSEARCH_[A-Z0-9_]+)` \|", table, re.M))
if len(names) != len(table.splitlines()) - 2:
    failures.append(f"every row of the table names one variable, once: {len(names)} names, "
                    f"{len(table.splitlines()) - 2} rows")

doc = (source / "docs" / "runner.md").read_text()
if BEGIN not in doc or END not in doc:
    failures.append(f"docs/runner.md has no {BEGIN!r} ... {END!r} section")
elif doc[doc.index(BEGIN) + len(BEGIN):doc.index(END)].strip("\n") != table.strip("\n"):
    failures.append("docs/runner.md's environment table differs from `searcher-run help environment`: run "
                    "scripts/update_environment_table.py")

macros = set(re.findall(r"^\s*(HPSEARCH_[A-Z0-9_]+)=", (source / "runner" / "CMakeLists.txt").read_text(), re.M))
for path in sorted((source / "runner").rglob("*.[ch]pp")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for name in set(NAME.findall(line)) - names - macros:
            failures.append(f"{path.relative_to(source)}:{number}: {name} is not in the trial environment table")

for path in sorted((source / "python" / "determined").rglob("*.py")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for name in set(NAME.findall(line)) - names:
            failures.append(f"{path.relative_to(source)}:{number}: {name} is not in the trial environment table")

for failure in failures:
    print(failure)
if failures:
    sys.exit(1)
print(f"trial_environment: ok ({len(names)} variables)")
