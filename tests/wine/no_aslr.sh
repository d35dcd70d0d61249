# Sourced first by the scripts that start Wine (harness.sh, bench.sh, demo.sh): runs the
# calling script again with address-space randomisation off, for it and its children.
#
# Debian's wine64 comes without Wine's preloader, so the loader's brk heap starts at a
# random address in the 1 GB above the loader. Now and then (once in 2,400 starts of
# `wine winagent.exe --version` in a loop, and every act, tree or state in a test is a
# start) it covers the place where Wine maps the shared user data, 0x7ffe0000. That
# process exits 1 before its main runs, and under WINEDEBUG=-all says nothing
# ("err:virtual:virtual_alloc_first_teb wine: failed to map the shared user data:
# c0000018" with err+virtual). Without randomisation the heap stays beside the loader
# at 0x7d000000. The personality is inherited, so every Wine process the ground, a test
# or winagent itself starts runs without it. Only the test ground: Windows is unaffected.
if [ -z "${WINAGENT_NO_ASLR:-}" ] && command -v setarch >/dev/null 2>&1 &&
    setarch "$(uname -m)" -R true 2>/dev/null; then
    export WINAGENT_NO_ASLR=1
    exec setarch "$(uname -m)" -R bash "$0" "$@"
fi
