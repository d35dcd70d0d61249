#!/usr/bin/env bash
# winagent's release folder (./dev.sh release [OUT]), built reproducibly from this tree:
#   winagent.exe         the product, with its version resource; signed with Authenticode
#                        when WINAGENT_SIGN_PFX names a PKCS#12 certificate
#   winagent.mcpb        the MCP bundle (manifest.json + winagent.exe), packed by mcpb
#   winagent.spdx.json   the bill of materials (SPDX 2.3), from the link map
#   winget/              the winget manifest (schema 1.6.0: version, locale, installer)
#   SHA256SUMS           every file above
#   UNSIGNED-SHA256SUMS  when signed: the exe before signing, what a rebuild gives
#
# The same commit gives the same bytes in any folder: SOURCE_DATE_EPOCH (default: the
# commit's time) is the only time anything carries, and no file holds a build path. A
# signature is made at SOURCE_DATE_EPOCH too, so the same certificate gives the same
# signed exe; an RFC 3161 time stamp (WINAGENT_SIGN_TIMESTAMP_URL) is the one part that
# differs from one signing to the next.
#
# Environment:
#   WINAGENT_SIGN_PFX, WINAGENT_SIGN_PASSWORD   the certificate and its password
#   WINAGENT_SIGN_TIMESTAMP_URL                 an RFC 3161 time-stamp server (optional)
#   WINAGENT_SIGN_CAFILE                        the CA bundle the signature is verified
#                                               against (default: the system's)
#   WINAGENT_RELEASE_URL    where the release's files will be published (winget's
#                           InstallerUrl is this + /winagent.exe)
#   WINAGENT_RELEASE_BUILD  the build folder (default: build/release)
#   WINAGENT_NATIVE_EXE     a native winagent of this tree to list the MCP tools (default:
#                           built in the build folder)
#   SOURCE_DATE_EPOCH, WINAGENT_COMMIT   for a tree that is no git checkout
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'release: %s\n' "$*" >&2; exit 1; }

out=$(realpath -m "${1:-$src/build/release/out}")
build=$(realpath -m "${WINAGENT_RELEASE_BUILD:-$src/build/release}")
tools=$src/tests/release/node_modules
version=$(sed -n 's/^project(winagent VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || die "no version in CMakeLists.txt"
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$src" log -1 --format=%ct 2>/dev/null) ||
        die "no git history here: set SOURCE_DATE_EPOCH (and WINAGENT_COMMIT)"
fi
if [ -z "${WINAGENT_COMMIT:-}" ]; then
    WINAGENT_COMMIT=$(git -C "$src" rev-parse HEAD 2>/dev/null) || WINAGENT_COMMIT=unknown
    [ -z "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
        WINAGENT_COMMIT="$WINAGENT_COMMIT-modified"
fi
export SOURCE_DATE_EPOCH TZ=UTC LC_ALL=C
url=${WINAGENT_RELEASE_URL:-https://winagent.invalid/releases/v$version}
[ -x "$tools/.bin/mcpb" ] || die "no mcpb in tests/release: run ./dev.sh deps"
jobs=$(nproc 2>/dev/null || echo 2)

say "release $version of $WINAGENT_COMMIT (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH) into $out"
lodepng_dir=$("$src/cmake/build-deps.sh" lodepng)
civetweb_dir=$("$src/cmake/build-deps.sh" civetweb)
win64_prefix=$("$src/cmake/build-deps.sh" win64)
deps=(-DWINAGENT_LODEPNG_DIR="$lodepng_dir" -DWINAGENT_CIVETWEB_DIR="$civetweb_dir")

say "building winagent.exe (reproducible)"
cmake -S "$src" -B "$build/win64" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/mingw-w64-x86_64.cmake" \
    -DWINAGENT_RELEASE=ON -DWINAGENT_WIN64_PREFIX="$win64_prefix" "${deps[@]}" >/dev/null
cmake --build "$build/win64" --target winagent -j "$jobs" >/dev/null

native=${WINAGENT_NATIVE_EXE:-}
if [ -z "$native" ]; then
    say "building a native winagent (it lists the MCP tools for the bundle)"
    cmake -S "$src" -B "$build/native" "${deps[@]}" >/dev/null
    cmake --build "$build/native" --target winagent -j "$jobs" >/dev/null
    native=$build/native/winagent
fi

rm -rf "$out"
mkdir -p "$out/winget"
exe=$out/winagent.exe
if [ -z "${WINAGENT_SIGN_PFX:-}" ]; then
    cp "$build/win64/winagent.exe" "$exe"
else
    say "signing with $WINAGENT_SIGN_PFX"
    command -v osslsigncode >/dev/null || die "osslsigncode is not installed (./dev.sh deps)"
    sign=(osslsigncode sign -pkcs12 "$WINAGENT_SIGN_PFX" -h sha256 -n winagent
          -time "$SOURCE_DATE_EPOCH")
    [ -z "${WINAGENT_RELEASE_URL:-}" ] || sign+=(-i "$WINAGENT_RELEASE_URL")
    # the password goes through a file descriptor, never the command line
    [ -z "${WINAGENT_SIGN_PASSWORD:-}" ] ||
        sign+=(-readpass /dev/fd/3)
    [ -z "${WINAGENT_SIGN_TIMESTAMP_URL:-}" ] || sign+=(-ts "$WINAGENT_SIGN_TIMESTAMP_URL")
    "${sign[@]}" -in "$build/win64/winagent.exe" -out "$exe" >/dev/null \
        3<<<"${WINAGENT_SIGN_PASSWORD:-}" || die "signing failed"
    verify=(osslsigncode verify -in "$exe")
    [ -z "${WINAGENT_SIGN_CAFILE:-}" ] || verify+=(-CAfile "$WINAGENT_SIGN_CAFILE")
    "${verify[@]}" >"$build/verify.txt" 2>&1 ||
        { cat "$build/verify.txt" >&2; die "the signed exe does not verify"; }
    say "signature verified (osslsigncode verify)"
    (cd "$build/win64" && sha256sum winagent.exe) >"$out/UNSIGNED-SHA256SUMS"
fi

say "bundle: winagent.mcpb"
bundle=$build/bundle
rm -rf "$bundle" && mkdir -p "$bundle"
python3 "$src/cmake/release/bundle.py" --winagent "$native" --version "$version" \
    >"$bundle/manifest.json"
cp "$exe" "$bundle/winagent.exe"
chmod 0644 "$bundle/manifest.json" && chmod 0755 "$bundle/winagent.exe"
touch -d "@$SOURCE_DATE_EPOCH" "$bundle"/*
node -r "$src/cmake/release/fixed_clock.cjs" "$tools/.bin/mcpb" pack "$bundle" \
    "$out/winagent.mcpb" >"$build/mcpb-pack.txt" 2>&1 ||
    { cat "$build/mcpb-pack.txt" >&2; die "mcpb pack failed"; }

say "winget manifest"
python3 "$src/cmake/release/winget.py" --exe "$exe" --version "$version" \
    --epoch "$SOURCE_DATE_EPOCH" --url "$url" --out "$out/winget"

say "bill of materials: winagent.spdx.json"
python3 "$src/cmake/release/sbom.py" --build "$build/win64" --exe "$exe" --version "$version" \
    --commit "$WINAGENT_COMMIT" --epoch "$SOURCE_DATE_EPOCH" >"$out/winagent.spdx.json"

say "checking: the bill of materials and the winget manifest against their schemas, the bundle with mcpb"
node "$src/tests/release/validate.mjs" spdx "$out/winagent.spdx.json" >&2
node "$src/tests/release/validate.mjs" winget "$out/winget" >&2
"$tools/.bin/mcpb" validate "$bundle/manifest.json" >&2

(cd "$out" && find . -type f ! -name SHA256SUMS -printf '%P\n' | sort |
    xargs sha256sum >SHA256SUMS)
find "$out" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
say "done: $out"
cat "$out/SHA256SUMS" >&2
