#!/usr/bin/env bash
# install-deps.sh - make sure the Debian packages dodbench needs are installed.
# Fast no-op when they are. As root it installs the missing ones with apt-get; otherwise
# it prints the exact command and fails. Used by `make deps` (and so by bench, test, CI).
set -euo pipefail

packages=(
	gcc g++ make            # build
	libcmocka-dev           # C unit tests
	clang libclang-rt-14-dev  # fuzzing: clang 14, libFuzzer and the sanitizer runtimes
	libplf-colony-dev libstb-dev  # peers: plf::colony, stb_ds (header-only)
	libpapi-dev papi-tools  # hardware counters (optional at run time)
	valgrind                # callgrind cache simulation
	hyperfine               # whole-process timing
	python3 python3-matplotlib python3-numpy python3-scipy python3-pytest  # reports, /usr/bin/python3
	python3-pytest-xdist    # make test runs pytest on every core (-n)
	chromium chromium-driver python3-selenium  # the HTML report's browser test, make screenshot
	slurm-wlm munge         # the shard test stands up a one-node Slurm (tests/python/test_slurm.py)
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	echo "dodbench: missing Debian packages: ${missing[*]}" >&2
	echo "install them with: sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
echo "dodbench: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
