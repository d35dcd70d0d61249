#!/usr/bin/env bash
# The Wine test ground: a private Xvfb display (1920x1080x24) and a private Wine
# prefix in Wine's virtual-desktop mode (title bars, a desktop and a taskbar, as on
# Windows). ctest calls `up` before the wine.* tests and `down` after them.
#
#   harness.sh up          start Xvfb, the wineserver and the virtual desktop
#   harness.sh run CMD...  run CMD with DISPLAY/WINEPREFIX of the running ground
#   harness.sh down        stop everything `up` started (no leftovers)
#
# State lives in $WINAGENT_WINE_STATE (default build/native/wine): env.sh with the
# variables, pids, and prefix/ (kept between runs: making one takes ~10 s).
#
# With WINAGENT_WINE_LANG set (de_DE.UTF-8, zh_CN.UTF-8: a locale `locale -a` knows),
# the ground is another language's: its state in $WINAGENT_WINE_STATE/<lang>/, a display
# of its own, and a prefix made and run under that LANG (Wine takes its Windows locale
# from the Unix one), so Wine's programs speak that language.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=no_aslr.sh
. "$here/no_aslr.sh"
state=${WINAGENT_WINE_STATE:-$here/../../build/native/wine}
lang=${WINAGENT_WINE_LANG:-}
[ -z "$lang" ] || state=$state/${lang%%.*}
mkdir -p "$state"
state=$(cd "$state" && pwd)
prefix=$state/prefix
envfile=$state/env.sh
prefix_stamp=$prefix/.winagent-prefix-v1
keeper=${WINAGENT_KEEPER_EXE:-$(dirname "${WINAGENT_EXE:-$here/../../build/win64/winagent.exe}")/tests/apps/keeper.exe}
width=1920
height=1080

log() { printf 'harness: %s\n' "$*" >&2; }

wine_env() {
    export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
    if [ -n "$lang" ]; then
        export LANG=$lang LC_ALL=$lang
    fi
}

free_display() {
    local n
    for n in $(seq 90 140); do
        if [ ! -e /tmp/.X$n-lock ] && [ ! -e /tmp/.X11-unix/X$n ]; then
            echo "$n"
            return 0
        fi
    done
    return 1
}

start_xvfb() {
    local n tries
    for tries in 1 2 3; do
        n=$(free_display) || { log "no free X display"; return 1; }
        Xvfb ":$n" -screen 0 ${width}x${height}x24 -nolisten tcp -noreset \
            </dev/null >"$state/xvfb.log" 2>&1 &
        echo $! >"$state/xvfb.pid"
        for _ in $(seq 1 50); do
            if [ -e /tmp/.X11-unix/X$n ]; then
                echo "$n"
                return 0
            fi
            kill -0 "$(cat "$state/xvfb.pid")" 2>/dev/null || break
            sleep 0.1
        done
        kill "$(cat "$state/xvfb.pid")" 2>/dev/null || true
    done
    log "Xvfb did not start (see $state/xvfb.log)"
    return 1
}

make_prefix() {
    [ -f "$prefix_stamp" ] && return 0
    log "creating Wine prefix $prefix (once)"
    rm -rf "$prefix"
    wineboot -i </dev/null >"$state/wineboot.log" 2>&1
    # Every program opens in one virtual desktop of the display's size.
    wine reg add 'HKCU\Software\Wine\Explorer' /v Desktop /d winagent /f >/dev/null 2>&1
    wine reg add 'HKCU\Software\Wine\Explorer\Desktops' /v winagent /d ${width}x${height} /f \
        >/dev/null 2>&1
    # A crashing test program must not leave a modal crash dialog behind.
    wine reg add 'HKCU\Software\Wine\WineDbg' /v ShowCrashDialog /t REG_DWORD /d 0 /f \
        >/dev/null 2>&1
    wineserver -w </dev/null >/dev/null 2>&1
    touch "$prefix_stamp"
}

cmd_up() {
    [ -f "$envfile" ] && cmd_down
    command -v Xvfb >/dev/null || { log "Xvfb is not installed (run ./dev.sh deps)"; exit 1; }
    command -v wine >/dev/null || { log "wine is not installed (run ./dev.sh deps)"; exit 1; }
    if [ -n "$lang" ] && ! locale -a 2>/dev/null | grep -qix "${lang%%.*}.utf-\?8"; then
        log "the locale $lang is not generated (run ./dev.sh deps)"
        exit 1
    fi
    local n
    n=$(start_xvfb)
    export DISPLAY=:$n
    wine_env
    # Everything started here outlives this script: none of it may hold ctest's
    # output pipe, or ctest waits for it forever.
    make_prefix </dev/null
    wineserver -p </dev/null >/dev/null 2>&1
    # The desktop window with its taskbar; it lives until `down`.
    wine explorer.exe /desktop=winagent,${width}x${height} </dev/null >"$state/explorer.log" 2>&1 &
    echo $! >"$state/explorer.pid"
    # Wait until Wine answers inside the desktop.
    local ok=0
    for _ in $(seq 1 60); do
        if timeout 20 wine cmd.exe /c exit 0 >/dev/null 2>&1; then ok=1; break; fi
        sleep 0.5
    done
    [ "$ok" = 1 ] || { log "Wine did not come up"; cmd_down; exit 1; }
    # Wine closes the desktop a second after the last program using it ends, and the
    # next program starts a new desktop process that inherits its output: a test
    # reading winagent's output through a pipe would wait for that process to end.
    # The keeper (tests/apps/keeper.c, one hidden window) uses the desktop until `down`.
    if [ -f "$keeper" ]; then
        wine "$keeper" </dev/null >/dev/null 2>&1 &
        echo $! >"$state/keeper.pid"
    else
        log "no $keeper (./dev.sh build makes it): the desktop may close between tests"
    fi
    cat >"$envfile" <<ENV
export DISPLAY=:$n
export WINEPREFIX=$prefix
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
export WINEARCH=win64
ENV
    if [ -n "$lang" ]; then
        printf 'export LANG=%s\nexport LC_ALL=%s\n' "$lang" "$lang" >>"$envfile"
    fi
    log "up: DISPLAY=:$n WINEPREFIX=$prefix"
}

cmd_down() {
    if [ -f "$envfile" ]; then
        # shellcheck disable=SC1090
        . "$envfile"
    fi
    wine_env
    wineserver -k >/dev/null 2>&1 || true
    local f
    for f in keeper explorer xvfb; do
        if [ -f "$state/$f.pid" ]; then
            kill "$(cat "$state/$f.pid")" 2>/dev/null || true
            rm -f "$state/$f.pid"
        fi
    done
    wineserver -w >/dev/null 2>&1 || true
    rm -f "$envfile"
    log "down"
}

cmd_run() {
    [ -f "$envfile" ] || { log "the Wine ground is not up (ctest runs wine.up first)"; exit 1; }
    # shellcheck disable=SC1090
    . "$envfile"
    exec "$@"
}

case "${1:-}" in
    up) cmd_up ;;
    down) cmd_down ;;
    run) shift; cmd_run "$@" ;;
    *) echo "usage: $0 up|run CMD...|down" >&2; exit 2 ;;
esac
