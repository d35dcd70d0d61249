#!/usr/bin/env bash
# Cross-builds winagent's third-party libraries once, from Debian's source packages,
# into a cache outside the repository keyed by their versions.
#
#   cmake/build-deps.sh win64    -> prints the win64 prefix (include/, lib/: curl
#                                   with Schannel, and cJSON; both static)
#   cmake/build-deps.sh lodepng  -> prints a folder holding lodepng.c and lodepng.h
#                                   (Debian ships lodepng compiled as C++; we compile
#                                   the same source as C for both targets)
#   cmake/build-deps.sh civetweb -> prints a folder holding civetweb.c, civetweb.h and
#                                   the .inl files it includes (the embeddable HTTP
#                                   server of `mcp --http`, compiled by CMake for both
#                                   targets without SSL, CGI or file serving)
#   cmake/build-deps.sh copyright PKG VERSION
#                                -> prints the path of the Debian source package's
#                                   debian/copyright at that version (fetched once; the
#                                   release's bill of materials reads the licences there)
#   cmake/build-deps.sh putty    -> prints a folder holding putty.exe: PuTTY's Windows
#                                   build (its configuration window and category tree),
#                                   for the real-program suite
#   cmake/build-deps.sh puzzles  -> prints a folder holding mines.exe: Mines of Simon
#                                   Tatham's Portable Puzzle Collection (sgt-puzzles),
#                                   Windows front end, for the real-program suite
#
# Each cached library says where it came from: the win64 prefix in sources.txt, a source
# folder in SOURCE ("PKG VERSION" lines).
#
# Everything goes to stderr except the one path on stdout. Re-running with a filled
# cache does no work. WINAGENT_CACHE overrides the cache root.
set -euo pipefail

cache_root=${WINAGENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winagent}
cross=x86_64-w64-mingw32
jobs=$(nproc 2>/dev/null || echo 2)

log() { printf 'build-deps: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The Debian source version apt would fetch for PKG (e.g. 7.88.1-10+deb12u15).
src_version() {
    local dsc
    dsc=$(apt-get source --print-uris "$1" 2>/dev/null | awk '/\.dsc/ {print $2; exit}')
    [ -n "$dsc" ] || die "apt has no source package '$1' (is a deb-src entry configured?)"
    dsc=${dsc%.dsc}
    printf '%s\n' "${dsc#*_}"
}

# Unpacks the source package PKG (patches applied) below DIR, prints the tree's path.
fetch_source() {
    local pkg=$1 dir=$2 dsc
    mkdir -p "$dir"
    if ! (cd "$dir" && apt-get source -qq "$pkg" >&2 2>/dev/null); then
        # A mirror may lack the upstream tarball's detached signature (.asc): apt has
        # checked the files that came against the archive's index, so unpack those.
        dsc=$(find "$dir" -maxdepth 1 -name "${pkg}_*.dsc" | head -n 1)
        [ -n "$dsc" ] && [ -n "$(find "$dir" -maxdepth 1 -name "${pkg}_*.orig.tar.*" ! -name '*.asc')" ] ||
            die "apt-get source $pkg failed"
        (cd "$dir" && dpkg-source -x --no-check "$(basename "$dsc")" >&2 2>/dev/null) ||
            die "dpkg-source -x $dsc failed"
    fi
    find "$dir" -mindepth 1 -maxdepth 1 -type d -name "${pkg}-*" | head -n 1
}

# A source package's files in the cache, fetched once: copy_PKG SRC DIR picks them.
source_dir() {
    local pkg=$1 ver dir tmp src
    ver=$(src_version "$pkg")
    dir="$cache_root/$pkg-$ver"
    if [ ! -f "$dir/.done" ]; then
        log "fetching $pkg $ver"
        tmp=$(mktemp -d)
        src=$(fetch_source "$pkg" "$tmp")
        mkdir -p "$dir"
        "copy_$pkg" "$src" "$dir"
        rm -rf "$tmp"
        touch "$dir/.done"
    fi
    [ -f "$dir/SOURCE" ] || printf '%s %s\n' "$pkg" "$ver" > "$dir/SOURCE"
    printf '%s\n' "$dir"
}

# debian/copyright of source package PKG at VERSION, from its Debian tarball alone.
copyright_file() {
    local pkg=$1 want=$2 ver file uri tmp
    ver=$(src_version "$pkg")
    [ "$ver" = "$want" ] || die "apt offers $pkg $ver, not $want: rebuild the cache (./dev.sh deps)"
    file="$cache_root/copyright/${pkg}_$ver"
    if [ ! -f "$file" ]; then
        uri=$(apt-get source --print-uris "$pkg" 2>/dev/null |
            awk -F"'" '/\.debian\.tar\.|\.diff\.gz/ {print $2; exit}')
        # a native package has no Debian tarball: its one tarball holds debian/
        [ -n "$uri" ] || uri=$(apt-get source --print-uris "$pkg" 2>/dev/null |
            awk -F"'" '/\.tar\./ {print $2; exit}')
        [ -n "$uri" ] || die "apt has no source tarball of $pkg"
        tmp=$(mktemp -d)
        log "fetching debian/copyright of $pkg $ver"
        /usr/lib/apt/apt-helper download-file "$uri" "$tmp/src" >&2 ||
            die "cannot download $uri"
        mkdir -p "$cache_root/copyright"
        tar -xOf "$tmp/src" --wildcards '*debian/copyright' > "$tmp/copyright" 2>/dev/null ||
            die "no debian/copyright in $uri"
        mv "$tmp/copyright" "$file"
        rm -rf "$tmp"
    fi
    printf '%s\n' "$file"
}

# lodepng as C: the same source for native and win64.
copy_lodepng() {
    cp "$1/lodepng.cpp" "$2/lodepng.c"
    cp "$1/lodepng.h" "$2/lodepng.h"
    cp "$1/LICENSE" "$2/LICENSE" 2>/dev/null || true
}

# civetweb as Debian patches it: one C file and the files it includes.
copy_civetweb() {
    cp "$1/src/civetweb.c" "$1/src/"*.inl "$1/include/civetweb.h" "$2/"
    cp "$1/LICENSE.md" "$2/LICENSE.md" 2>/dev/null || true
}

build_curl() {
    local src=$1 prefix=$2
    # --disable-pthreads: curl's threaded resolver then uses Win32 threads; pthreads
    # would pull in winpthread, which is not a Windows system DLL.
    log "configuring curl (Schannel, HTTP/HTTPS only, static)"
    (
        cd "$src"
        ./configure --host=$cross --prefix="$prefix" \
            --disable-shared --enable-static \
            --with-schannel --without-openssl --without-gnutls --without-mbedtls \
            --without-wolfssl --without-rustls --without-bearssl \
            --with-zlib="/usr/$cross" \
            --without-brotli --without-zstd --without-libpsl --without-libidn2 \
            --without-nghttp2 --without-ngtcp2 --without-nghttp3 --without-libssh2 \
            --without-librtmp --without-libgsasl \
            --disable-ftp --disable-file --disable-ldap --disable-ldaps --disable-rtsp \
            --disable-dict --disable-telnet --disable-tftp --disable-pop3 --disable-imap \
            --disable-smb --disable-smtp --disable-gopher --disable-mqtt \
            --disable-manual --disable-docs --disable-ntlm-wb --disable-alt-svc \
            --disable-hsts --enable-ipv6 --disable-pthreads \
            CFLAGS="-O2" >&2
        log "building curl"
        make -C lib -j"$jobs" >&2
        make -C lib install >&2
        make -C include install >&2
    )
}

build_cjson() {
    local src=$1 prefix=$2
    log "building cJSON"
    $cross-gcc -std=c89 -O2 -c "$src/cJSON.c" -o "$src/cJSON.o"
    $cross-ar rcs "$prefix/lib/libcjson.a" "$src/cJSON.o"
    mkdir -p "$prefix/include/cjson"
    cp "$src/cJSON.h" "$prefix/include/cjson/cJSON.h"
}

win64_prefix() {
    local curl_v cjson_v gcc_v key prefix tmp src
    command -v $cross-gcc >/dev/null || die "$cross-gcc not installed"
    curl_v=$(src_version curl)
    cjson_v=$(src_version cjson)
    gcc_v=$($cross-gcc -dumpversion)
    # recipe: bump when the build flags change, so caches built the old way are redone
    key="curl_${curl_v}-cjson_${cjson_v}-gcc_${gcc_v}-r2"
    prefix="$cache_root/win64-$key"
    if [ ! -f "$prefix/.done" ]; then
        rm -rf "$prefix"
        mkdir -p "$prefix/lib" "$prefix/include"
        tmp=$(mktemp -d)
        log "fetching curl $curl_v and cJSON $cjson_v sources"
        src=$(fetch_source curl "$tmp")
        build_curl "$src" "$prefix"
        src=$(fetch_source cjson "$tmp")
        build_cjson "$src" "$prefix"
        rm -rf "$tmp"
        printf '%s\n' "$key" > "$prefix/.done"
        log "win64 dependencies ready in $prefix"
    fi
    [ -f "$prefix/sources.txt" ] ||
        printf 'curl %s lib/libcurl.a\ncjson %s lib/libcjson.a\n' "$curl_v" "$cjson_v" >"$prefix/sources.txt"
    printf '%s\n' "$prefix"
}

# Programs of Debian's source package PKG that its own CMake build and MinGW toolchain
# file (cmake/toolchain-mingw.cmake, upstream's) make for Windows: the targets named,
# copied with the licence into the cache. Prints the folder.
cmake_programs() {
    local pkg=$1 ver gcc_v dir tmp src t
    shift
    command -v $cross-gcc >/dev/null || die "$cross-gcc not installed"
    ver=$(src_version "$pkg")
    gcc_v=$($cross-gcc -dumpversion)
    # recipe: bump when the build changes
    dir="$cache_root/$pkg-win64-$ver-gcc_$gcc_v-r1"
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        tmp=$(mktemp -d)
        log "fetching $pkg $ver"
        src=$(fetch_source "$pkg" "$tmp")
        log "cross-building $pkg: $*"
        cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchain-mingw.cmake" >&2
        cmake --build "$tmp/build" -j"$jobs" --target "$@" >&2
        for t in "$@"; do
            cp "$tmp/build/$t.exe" "$dir/" || die "$pkg built no $t.exe"
        done
        cp "$src/LICENCE" "$dir/LICENCE" 2>/dev/null || true
        rm -rf "$tmp"
        touch "$dir/.done"
        log "$pkg ready in $dir"
    fi
    printf '%s\n' "$dir"
}

case "${1:-}" in
    win64) win64_prefix ;;
    lodepng) source_dir lodepng ;;
    civetweb) source_dir civetweb ;;
    copyright) copyright_file "${2:?source package}" "${3:?version}" ;;
    putty) cmake_programs putty putty ;;
    puzzles) cmake_programs sgt-puzzles mines ;;
    *) die "usage: $0 win64|lodepng|civetweb|putty|puzzles|copyright PKG VERSION" ;;
esac
