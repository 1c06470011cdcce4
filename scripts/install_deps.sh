#!/usr/bin/env bash
# Installs the Debian packages hpsearch builds with (Debian 12). Safe to run again.
set -euo pipefail
# python3 and python3-sklearn: the runner's tests and its scikit-learn example search (CI).
# pkg-config: the installed-package test builds a consumer through hpsearch.pc (tests/package).
# golang-go: the Go master example over the C ABI (examples/go-master), built and run by ctest.
# clang and libclang-rt-14-dev: the sanitized build with libFuzzer (scripts/test.sh, fuzz.sh).
# pybind11-dev and python3-dev: the Python module hpsearch (python/), its tests and
# bench/python_bench.cpp, built for Debian's /usr/bin/python3.
packages=(g++ cmake ninja-build libboost-random-dev libeigen3-dev nlohmann-json3-dev
          libyaml-cpp-dev doctest-dev libbenchmark-dev python3 python3-sklearn pkg-config golang-go
          clang libclang-rt-14-dev pybind11-dev python3-dev
          # The house style's checks (scripts/check_style.sh, check_tidy.sh): clang-format 14,
          # clang-tidy 14 and pyflakes.
          clang-format clang-tidy python3-pyflakes
          # The runner's PyTorch examples and torchrun (determined.launch.torch_distributed).
          python3-torch
          # The web UI (searcher-run ui, docs/ui.md): cpp-httplib 0.11, Debian's small threaded HTTP
          # server (a compiled library, header and .so); Chromium, its WebDriver and Selenium for
          # the test that drives the pages in a real headless browser (tests/ui/ui_browser_test.py).
          libcpp-httplib-dev chromium chromium-driver python3-selenium
          # A one-node Slurm 22.05 for the Slurm launcher's tests (scripts/slurm-cluster.sh).
          slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
# Installing munge, slurmctld and slurmd would start their services with Debian's default
# configuration (or fail to, without systemd, and fail the install). A policy-rc.d that
# answers 101 ("action forbidden") stops invoke-rc.d starting any service during the install;
# scripts/slurm-cluster.sh starts the daemons itself, with its own configuration, when a test
# needs them. An existing policy-rc.d (a container's own) is left as it is.
policy=/usr/sbin/policy-rc.d
added_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  added_policy=true
fi
status=0
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
if $added_policy; then $sudo rm -f "$policy"; fi
exit $status
