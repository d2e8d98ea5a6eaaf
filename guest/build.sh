#!/usr/bin/env bash
# Build the "Linux in a tab" guest image from Debian packages into vendor/guest/.
#
#   guest/build.sh                 build everything (idempotent; reuses guest/.cache)
#   guest/build.sh --kernel-only   stop after the kernel
#   guest/build.sh --reuse-kernel  take the committed vendor/guest/bzImage instead of compiling
#                                  (only after checking it was built from the same inputs)
#   guest/build.sh --state-only    (re)make only the shipped post-boot state from the committed image
#   APT_REFRESH=1 guest/build.sh   re-read the trixie package lists (newer package versions)
#   KERNEL_VERSION=V guest/build.sh  another linux-source-7.2 from trixie-backports than the pinned one
#   JOBS=4 guest/build.sh          parallel kernel build (default: nproc)
#
# Host: Debian 12 (bookworm) amd64, root (apt-get installs missing host tools).
# See guest/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
OUT=${OUT:-$REPO/vendor/guest}
CACHE=${CACHE:-$HERE/.cache}
WORK=${WORK:-$HERE/.build}
JOBS=${JOBS:-$(nproc)}
SUITE=${SUITE:-trixie}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# The kernel comes from trixie-backports (Landlock ABI 7 and its audit records need Linux 6.15+;
# trixie itself stops at 6.12). Pinned: a newer backport is taken on purpose (KERNEL_VERSION=…),
# not by whichever upload the mirror carries that day. docs/decisions/0029.
KVER_PKG=${KVER_PKG:-linux-source-7.2}
KERNEL_VERSION=${KERNEL_VERSION:-7.2.12-1~bpo13+1}
KSUITE=${KSUITE:-$SUITE-backports}
# Fixed timestamp for kernel and cpio so that identical inputs give identical bytes.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1764633600}   # 2025-12-02T00:00:00Z
KERNEL_ONLY=0
REUSE_KERNEL=0
STATE_ONLY=0
for a in "$@"; do
  case "$a" in
    --kernel-only) KERNEL_ONLY=1 ;;
    --reuse-kernel) REUSE_KERNEL=1 ;;
    --state-only) STATE_ONLY=1 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument: $a" >&2; exit 64 ;;
  esac
done

T0=$(date +%s)
log() { printf '[build %4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { printf 'build.sh: ERROR: %s\n' "$*" >&2; exit 1; }

mkdir -p "$CACHE" "$WORK" "$OUT"

# ---------------------------------------------------------------- 1. host tools
HOST_PKGS=(gcc gcc-multilib make flex bison bc cpio xz-utils zstd lz4 libelf-dev
           binutils seabios perl autoconf automake libtool pkg-config dpkg-dev)
host_deps() {
  local missing=() p
  for p in "${HOST_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing host packages: ${missing[*]}"
    local SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# ---------------------------------------------------------------- 2. private apt for trixie/i386
APTDIR=$CACHE/apt
DEBS=$CACHE/debs
APT_OPTS=(
  -o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
  -o Dir::State::status=/dev/null -o Debug::NoLocking=1
  -o APT::Architecture=i386 -o APT::Architectures=i386
  -o Acquire::Languages=none -o APT::Sandbox::User=root
)
apt_setup() {
  mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$DEBS"
  # Backports for binary packages only (the kernel's source package, linux-source-*): its
  # Release is NotAutomatic, so every other package keeps trixie's version, and with no
  # deb-src line for it the guest's busybox and curl stay on trixie's sources.
  printf 'deb [arch=i386] %s %s main\ndeb [arch=i386] %s %s main\ndeb-src %s %s main\n' \
    "$MIRROR" "$SUITE" "$MIRROR" "$KSUITE" "$MIRROR" "$SUITE" > "$APTDIR/sources.list.new"
  # A changed list (a first build after the move to backports) is read again.
  if ! cmp -s "$APTDIR/sources.list.new" "$APTDIR/sources.list"; then
    mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"; rm -f "$APTDIR"/lists/*_Packages* "$APTDIR"/lists/*_Release*
  else rm -f "$APTDIR/sources.list.new"; fi
  if [ "${APT_REFRESH:-0}" = 1 ] || ! ls "$APTDIR"/lists/*_Packages* >/dev/null 2>&1 ||
     ! ls "$APTDIR"/lists/*_Sources* >/dev/null 2>&1; then
    log "reading $SUITE/i386 package lists (private apt state in $APTDIR)"
    apt-get "${APT_OPTS[@]}" -q update >&2
  fi
}
# Print "name version filename" for the candidate of each package (no dependencies).
apt_candidate() {
  apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
    awk -v p="$1" '/^Version:/{v=$2} /^Filename:/{f=$2} END{ if(!v) exit 1; n=split(f,a,"/"); print p, v, a[n] }'
}
# Download a package (exact version) into the cache unless it is already there; print the .deb path.
fetch_deb() {
  local name=$1 ver=$2 f
  f=$(ls "$DEBS/${name}_${ver/:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
  if [ -z "$f" ]; then
    log "downloading $name $ver"
    (cd "$DEBS" && apt-get "${APT_OPTS[@]}" -q download "$name=$ver" >&2)
    f=$(ls "$DEBS/${name}_${ver/:/%3a}_"*.deb | head -n1)
  fi
  echo "$f"
}
# Download the source package NAME (its .dsc and tarballs, checked by apt against the signed
# Sources index) into the cache and print "version dsc-path". The newest version in the index
# whose files the mirror still serves wins: a mirror may list a security update's source
# before it carries its files (seen: curl 8.14.1-2+deb13u7 listed, its .dsc a 404). A version
# the mirror did not serve is remembered (NAME_VERSION.missing) and asked for again only after
# APT_REFRESH=1, not on every build.
SRCS=$CACHE/src
fetch_src() {
  local name=$1 ver dsc
  mkdir -p "$SRCS"
  [ "${APT_REFRESH:-0}" = 1 ] && rm -f "$SRCS/${name}"_*.missing
  for ver in $(apt-cache "${APT_OPTS[@]}" showsrc "$name" 2>/dev/null | sed -n 's/^Version: //p' | sort -rV); do
    dsc=$SRCS/${name}_${ver#*:}.dsc
    [ -f "${dsc%.dsc}.missing" ] && continue
    if [ ! -f "$dsc" ]; then
      log "downloading source $name $ver"
      if ! (cd "$SRCS" && apt-get "${APT_OPTS[@]}" -q source --download-only "$name=$ver" >&2); then
        log "source $name $ver: not on the mirror, trying an older one"
        : > "${dsc%.dsc}.missing"
        continue
      fi
    fi
    echo "$ver $dsc"; return
  done
  die "no source package $name on $MIRROR $SUITE"
}
PKGLOG=$WORK/packages.txt   # "name version" of every package whose files went into the image

# ---------------------------------------------------------------- 3. kernel
KSRC=$WORK/kernel/src
KOBJ=$WORK/kernel/obj
build_kernel() {
  local name ver deb stamp_want
  name=$KVER_PKG ver=$KERNEL_VERSION
  apt-cache "${APT_OPTS[@]}" show "$name=$ver" >/dev/null 2>&1 ||
    die "no $name $ver in $KSUITE (the pinned kernel; set KERNEL_VERSION to one 'apt-cache policy $name' lists)"
  deb=$(fetch_deb "$name" "$ver")
  echo "$name $ver" >> "$PKGLOG"
  stamp_want=$( { echo "$ver"; cat "$HERE/kernel.fragment"; sed -n '/^# -- kernel recipe --/,/^# -- end kernel recipe --/p' "$0"; } | sha256sum | cut -c1-64)
  KSTAMP=$stamp_want
  if [ -f "$KOBJ/arch/x86/boot/bzImage" ] && [ "$(cat "$WORK/kernel/stamp" 2>/dev/null)" = "$stamp_want" ]; then
    log "kernel: up to date ($ver)"; return
  fi
  if [ "$REUSE_KERNEL" = 1 ]; then reuse_kernel "$ver" "$deb" "$stamp_want"; return; fi
  # -- kernel recipe --
  if [ "$(cat "$WORK/kernel/src.version" 2>/dev/null)" != "$ver" ]; then
    log "kernel: unpacking $KVER_PKG $ver"
    rm -rf "$WORK/kernel"; mkdir -p "$WORK/kernel/deb" "$KSRC" "$KOBJ"
    dpkg-deb -x "$deb" "$WORK/kernel/deb"
    tar -C "$KSRC" --strip-components=1 -xf "$WORK/kernel/deb/usr/src/$KVER_PKG.tar.xz"
    rm -rf "$WORK/kernel/deb"
    echo "$ver" > "$WORK/kernel/src.version"
  fi
  local KMAKE=(make -C "$KSRC" O="$KOBJ" ARCH=i386
               KBUILD_BUILD_USER=guest KBUILD_BUILD_HOST=linux-in-a-tab
               KBUILD_BUILD_TIMESTAMP="@$SOURCE_DATE_EPOCH")
  log "kernel: tinyconfig + kernel.fragment"
  "${KMAKE[@]}" -s tinyconfig
  (cd "$KSRC" && scripts/kconfig/merge_config.sh -m -O "$KOBJ" "$KOBJ/.config" "$HERE/kernel.fragment" >/dev/null)
  "${KMAKE[@]}" -s olddefconfig
  check_kconfig "$KOBJ/.config"
  log "kernel: make -j$JOBS bzImage (a clean build takes ~8 min on 2 cores)"
  "${KMAKE[@]}" -j"$JOBS" bzImage >"$WORK/kernel/build.log" 2>&1 ||
    { tail -n 40 "$WORK/kernel/build.log" >&2; die "kernel build failed (log: $WORK/kernel/build.log)"; }
  # -- end kernel recipe --
  echo "$stamp_want" > "$WORK/kernel/stamp"
}
# --reuse-kernel: the kernel's inputs did not change, so the committed bzImage is what a
# compile would give (KBUILD_BUILD_* and SOURCE_DATE_EPOCH are fixed). Checked, not assumed:
# the same linux-source version, the committed .config (from BUILD-INFO) still carries every
# fragment line, the bzImage matches manifest.json, and the kernel stamp (recorded since this
# option exists) is the same. Only usr/gen_init_cpio.c is unpacked from the source (for the cpio).
reuse_kernel() {
  local ver=$1 deb=$2 stamp_want=$3 info=$OUT/BUILD-INFO recorded
  [ -f "$info" ] && [ -f "$OUT/bzImage" ] || die "--reuse-kernel: no committed $OUT/bzImage and BUILD-INFO"
  grep -qxF "$KVER_PKG $ver" "$info" || die "--reuse-kernel: the committed kernel is not from $KVER_PKG $ver; build it"
  recorded=$(sed -n 's/^kernel stamp: //p' "$info")
  [ -z "$recorded" ] || [ "$recorded" = "$stamp_want" ] ||
    die "--reuse-kernel: kernel.fragment or the kernel recipe changed since the committed build; build it"
  [ "$(sha256sum < "$OUT/bzImage" | cut -c1-64)" = "$(sed -n 's/.*"kernel":.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$OUT/manifest.json")" ] ||
    die "--reuse-kernel: $OUT/bzImage does not match manifest.json"
  rm -rf "$WORK/kernel"; mkdir -p "$WORK/kernel/deb" "$KSRC/usr" "$KOBJ/arch/x86/boot"
  sed -n '/^== kernel .config$/,$p' "$info" | tail -n +2 > "$KOBJ/.config"
  check_kconfig "$KOBJ/.config"
  cp "$OUT/bzImage" "$KOBJ/arch/x86/boot/bzImage"
  log "kernel: reusing the committed bzImage ($ver); extracting usr/gen_init_cpio.c"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$KVER_PKG.tar.xz" |
    tar -xJ -O --wildcards '*/usr/gen_init_cpio.c' > "$KSRC/usr/gen_init_cpio.c"
  [ -s "$KSRC/usr/gen_init_cpio.c" ] || die "--reuse-kernel: usr/gen_init_cpio.c not found in $deb"
  KERNEL_REUSED=yes
}
# Every line of the fragment must be in the final .config, exactly.
check_kconfig() {
  local cfg=$1 line sym bad=0
  while IFS= read -r line; do
    case "$line" in
      CONFIG_*=*)
        grep -qxF -- "$line" "$cfg" || { echo "kconfig: wanted '$line', got '$(grep -E "^(# )?${line%%=*}[= ]" "$cfg" || echo absent)'" >&2; bad=1; } ;;
      "# CONFIG_"*" is not set")
        sym=${line#\# }; sym=${sym%% *}
        if grep -q "^$sym=" "$cfg"; then echo "kconfig: wanted '$line', got '$(grep "^$sym=" "$cfg")'" >&2; bad=1; fi ;;
    esac
  done < "$HERE/kernel.fragment"
  [ "$bad" = 0 ] || die "kernel.fragment options did not take effect (see above); fix dependencies in the fragment"
  log "kernel: all kernel.fragment options verified in .config"
}

# ---------------------------------------------------------------- 4. the guest's C library
# Every program in the image is static: busybox, curl and tab-tools each carry the C library
# they use. With glibc that was ~0.7 MB a program (a static "hello" is 674 kB on i386), and the
# state held it (compressed once, as the three shared it; guest/README.md, "The C library, and
# busybox").
# musl's is a few kB: the programs are linked against trixie's i386 musl (musl-dev), with the
# kernel's user-space headers (trixie's linux-libc-dev, 6.12: older than the 7.2 kernel, so the
# programs define the newer Landlock and audit constants they use themselves) for what musl does
# not define (Landlock, seccomp, the virtio and serial ioctls). $CC_GUEST is the compiler.
MUSLW=$WORK/musl
setup_musl() {
  local name ver deb
  rm -rf "$MUSLW"; mkdir -p "$MUSLW/root"
  for name in musl-dev linux-libc-dev; do
    read -r name ver _ < <(apt_candidate "$name") || die "no $name in $SUITE"
    deb=$(fetch_deb "$name" "$ver")
    dpkg-deb -x "$deb" "$MUSLW/root"
    echo "$name $ver" >> "$PKGLOG"
    [ "$name" = musl-dev ] && MUSL_VERSION=$ver
  done
  local m=$MUSLW/root specs=$MUSLW/root/usr/lib/i386-linux-musl/musl-gcc.specs
  [ -f "$specs" ] || die "musl-dev has no musl-gcc.specs"
  # Debian's specs name /usr paths of an installed musl; these point at the unpacked one, add
  # the kernel's headers after musl's own, and link i386 objects (the host's gcc is amd64).
  sed -e "s#-isystem /usr/include/i386-linux-musl#-isystem $m/usr/include/i386-linux-musl -idirafter $m/usr/include/i386-linux-gnu -idirafter $m/usr/include#g" \
      -e "s#/usr/lib/i386-linux-musl#$m/usr/lib/i386-linux-musl#g" \
      -e "s#^-dynamic-linker /lib/ld-musl-i386.so.1 -nostdlib#-m elf_i386 -dynamic-linker /lib/ld-musl-i386.so.1 -nostdlib#" \
      "$specs" > "$MUSLW/musl.specs"
  grep -q -- '-m elf_i386' "$MUSLW/musl.specs" || die "musl-gcc.specs: its link line changed; guest/build.sh rewrites it"
  CC_GUEST="gcc -m32 -specs=$MUSLW/musl.specs"
  printf 'int main(void) { return 0; }\n' > "$MUSLW/t.c"
  $CC_GUEST -static -Os -o "$MUSLW/t" "$MUSLW/t.c" || die "the musl toolchain does not link a program"
  log "musl $MUSL_VERSION (i386) for the guest's programs"
}

# ---------------------------------------------------------------- 5. busybox
# busybox: Debian's source (with Debian's patches) and Debian's static configuration, less the
# options in guest/busybox.deny, built here against musl like curl and tab-tools (Debian's
# busybox-static binary links glibc; guest/README.md, "The C library, and busybox").
BBW=$WORK/busybox
# The CONFIG_ names guest/busybox.deny turns off, one a line (its comments and blank lines left out).
bb_denied() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$HERE/busybox.deny"; }
build_busybox() {
  local ver dsc stamp cfg name
  read -r ver dsc < <(fetch_src busybox)
  echo "busybox $ver (source)" >> "$WORK/unpacked.pkgs"
  stamp=$( { echo "$ver $MUSL_VERSION"; gcc --version | head -n1; cat "$HERE/busybox.deny"; sed -n '/^build_busybox() {/,/^}/p' "$0"; } | sha256sum | cut -c1-64)
  if [ -x "$BBW/busybox.static" ] && [ "$(cat "$BBW/stamp" 2>/dev/null)" = "$stamp" ]; then
    log "busybox: up to date (busybox $ver)"; return
  fi
  rm -rf "$BBW"; mkdir -p "$BBW/obj"
  log "busybox: unpacking the source of busybox $ver (Debian's patches applied)"
  (cd "$BBW" && dpkg-source -x "$dsc" src) >"$BBW/unpack.log" 2>&1 ||
    { tail -n 20 "$BBW/unpack.log" >&2; die "could not unpack the busybox source"; }
  cfg=$BBW/obj/.config
  cp "$BBW/src/debian/config/pkg/static" "$cfg"
  for name in $(bb_denied); do
    grep -q "^CONFIG_$name=y\$" "$cfg" || die "guest/busybox.deny: CONFIG_$name is not on in Debian's static configuration"
    sed -i "s/^CONFIG_$name=y\$/# CONFIG_$name is not set/" "$cfg"
  done
  log "busybox: building busybox $ver (static, i386; ~1 min)"
  (cd "$BBW/src" && make O="$BBW/obj" ARCH=i386 CC="$CC_GUEST" HOSTCC=gcc oldconfig </dev/null &&
     make O="$BBW/obj" ARCH=i386 CC="$CC_GUEST" HOSTCC=gcc -j"$JOBS" busybox) >"$BBW/build.log" 2>&1 ||
    { tail -n 30 "$BBW/build.log" >&2; die "busybox build failed (log: $BBW/build.log)"; }
  # oldconfig may turn an applet back on through another's dependency: say so rather than ship it.
  for name in $(bb_denied); do
    if grep -q "^CONFIG_$name=y\$" "$cfg"; then die "guest/busybox.deny: CONFIG_$name came back on (a dependency of another option)"; fi
  done
  install -m 0755 "$BBW/obj/busybox" "$BBW/busybox.bin"
  strip "$BBW/busybox.bin"
  readelf -d "$BBW/busybox.bin" 2>/dev/null | grep -q NEEDED && die "busybox is not static"
  mv "$BBW/busybox.bin" "$BBW/busybox.static"
  { echo "busybox $ver, static (gcc -m32 against musl $MUSL_VERSION), Debian's static configuration less:"
    bb_denied | tr '\n' ' ' | fold -s -w 96; echo; } > "$BBW/record"
  echo "$stamp" > "$BBW/stamp"
}

# ---------------------------------------------------------------- 6. own programs
# One static program for all of them (src/tab-tools.c): each tool as a program of its own carried
# a copy of the C library (~0.7 MB each with glibc, before musl) in every restored guest's
# memory. TAB_TOOLS names the links made to it in /usr/bin (the tool each runs is the link's name).
TAB_TOOLS=(llrun tcpconnect tab-control curl)
build_programs() {
  rm -rf "$WORK/bin"; mkdir -p "$WORK/bin"
  log "cc -m32 -static tab-tools ($(cd "$HERE/src" && echo *.c))"
  $CC_GUEST -static -Os -Wall -Wextra -Werror -D_GNU_SOURCE -o "$WORK/bin/tab-tools" "$HERE"/src/*.c
  strip "$WORK/bin/tab-tools"
}

# The guest's curl: Debian's curl source (with Debian's patches) on Debian's wolfSSL source, one
# static i386 binary with no shared library. Debian's own curl binary links OpenSSL 3.5 and 31
# other libraries: 25 M guest instructions of start-up per command, and ~30 M more for a TLS
# handshake, mostly OpenSSL's context set-up and its post-quantum key share (docs/performance.md).
# Only what the guest uses is built in: HTTP(S), proxies, file://, no HTTP/2 (the page's proxy
# speaks HTTP/1.1), TLS 1.3 and 1.2, X25519 and P-256, RSA and ECDSA, SNI, ALPN, SSLKEYLOGFILE.
# SSLKEYLOGFILE needs only wolfSSL's secret callback (HAVE_SECRET_CALLBACK, for curl to write the
# file it is asked to), not --enable-keylog-export: that also makes wolfSSL itself append every
# session's secrets to ./sslkeylog.log, in whatever directory curl runs (seen: in a run's
# workspace, which then no longer matched its own snapshot). TLS sessions across runs (curl's
# --ssl-sessions, built with --enable-ssls-export; src/curl.c passes it) need wolfSSL to hand
# curl each new session: its new-session callback runs only with HAVE_EXT_CACHE, and curl finds
# its connection in it through the SSL object's app data, which needs HAVE_EX_DATA.
WOLFSSL_CONFIG=(--enable-static --disable-shared --enable-curl --enable-tls13 --enable-curve25519
                --enable-alpn --enable-sni --enable-sp=yes --enable-sp-math-all
                --disable-examples --disable-crypttests --disable-benchmark)
WOLFSSL_DEFINES=(-DHAVE_SECRET_CALLBACK -DHAVE_EXT_CACHE -DHAVE_EX_DATA)
CURL_CONFIG=(--disable-shared --enable-static --without-brotli --without-zstd
             --without-libpsl --without-libidn2 --without-nghttp2 --without-nghttp3 --without-ngtcp2
             --without-libssh2 --without-librtmp --without-gssapi --disable-ldap --disable-ldaps
             --disable-rtsp --disable-dict --disable-telnet --disable-tftp --disable-pop3
             --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt --disable-ipfs
             --disable-ftp --disable-manual --disable-docs --disable-ntlm --disable-kerberos-auth
             --disable-negotiate-auth --disable-aws --disable-alt-svc --disable-hsts
             --with-ca-bundle=/etc/ssl/certs/ca-certificates.crt --without-ca-path
             --enable-threaded-resolver --enable-ssls-export)
TLSW=$WORK/curl
build_curl() {
  local wver wdsc cver cdsc zver zdsc stamp
  read -r wver wdsc < <(fetch_src wolfssl)
  read -r cver cdsc < <(fetch_src curl)
  read -r zver zdsc < <(fetch_src zlib)
  echo "wolfssl $wver (source)" >> "$WORK/unpacked.pkgs"
  echo "curl $cver (source)" >> "$WORK/unpacked.pkgs"
  echo "zlib $zver (source)" >> "$WORK/unpacked.pkgs"
  stamp=$( { echo "$wver $cver $zver $MUSL_VERSION"; gcc --version | head -n1; printf '%s\n' "${WOLFSSL_CONFIG[@]}" "${WOLFSSL_DEFINES[@]}" "${CURL_CONFIG[@]}"; sed -n '/^build_curl() {/,/^}/p' "$0"; cat "$HERE"/patches/*.patch "$HERE"/src/libcurl/*.c; } | sha256sum | cut -c1-64)
  if [ -x "$TLSW/curl.static" ] && [ "$(cat "$TLSW/stamp" 2>/dev/null)" = "$stamp" ]; then
    log "curl: up to date (curl $cver, wolfSSL $wver)"; return
  fi
  rm -rf "$TLSW"; mkdir -p "$TLSW"
  log "curl: unpacking the sources of wolfSSL $wver, zlib $zver and curl $cver (Debian's patches applied)"
  # apt checked the files against the signed Sources index; dpkg-source checks them against the
  # .dsc again, and can only warn that the uploader's own signature is unknown (no debian-keyring).
  (cd "$TLSW" && dpkg-source -x "$wdsc" wolfssl && dpkg-source -x "$zdsc" zlib && dpkg-source -x "$cdsc" curl) >"$TLSW/unpack.log" 2>&1 ||
    { tail -n 20 "$TLSW/unpack.log" >&2; die "could not unpack the wolfSSL, zlib or curl source"; }
  # Our own changes on top of Debian's, one file each, named guest/patches/<source>-<what>.patch.
  local p
  for p in "$HERE"/patches/*.patch; do
    log "curl: applying $(basename "$p")"
    patch -s -d "$TLSW/$(basename "$p" | cut -d- -f1)" -p1 < "$p" || die "$(basename "$p") does not apply"
  done
  # tab-keep is compiled into curl's program (patches/curl-tab-keep-in-one-program.patch).
  cp "$HERE/src/libcurl/tab-keep.c" "$TLSW/curl/src/tab-keep.c"
  local cflags="-Os -ffile-prefix-map=$TLSW=." cross=(--host=i686-linux-musl CC="$CC_GUEST")
  log "curl: building wolfSSL $wver (static, i386; ~1 min)"
  # wolfSSL writes these defines into its installed options.h, so curl is built with them too.
  (cd "$TLSW/wolfssl" && ./autogen.sh && ./configure "${cross[@]}" CFLAGS="$cflags ${WOLFSSL_DEFINES[*]}" \
       --prefix="$TLSW/prefix" "${WOLFSSL_CONFIG[@]}" &&
     make -j"$JOBS" && make install) >"$TLSW/wolfssl.log" 2>&1 ||
    { tail -n 30 "$TLSW/wolfssl.log" >&2; die "wolfSSL build failed (log: $TLSW/wolfssl.log)"; }
  # zlib: only for curl's --compressed (gzip and deflate content encodings); its own configure
  # (not autoconf), static library only.
  log "curl: building zlib $zver (static, i386)"
  (cd "$TLSW/zlib" && CC="$CC_GUEST" CFLAGS="$cflags" ./configure --static --prefix="$TLSW/prefix" &&
     make -j"$JOBS" libz.a && make install) >"$TLSW/zlib.log" 2>&1 ||
    { tail -n 30 "$TLSW/zlib.log" >&2; die "zlib build failed (log: $TLSW/zlib.log)"; }
  # -lm: wolfSSL's static library calls pow() and log(); -all-static: libtool's word for a
  # fully static program (plain -static only links libcurl statically).
  log "curl: building curl $cver on wolfSSL (static, i386; ~2 min)"
  (cd "$TLSW/curl" && ./configure "${cross[@]}" CFLAGS="$cflags" LIBS=-lm PKG_CONFIG_LIBDIR="$TLSW/prefix/lib/pkgconfig" \
       --prefix="$TLSW/prefix" --with-wolfssl="$TLSW/prefix" --with-zlib="$TLSW/prefix" "${CURL_CONFIG[@]}" &&
     make -j"$JOBS" curl_LDFLAGS=-all-static) >"$TLSW/curl.log" 2>&1 ||
    { tail -n 30 "$TLSW/curl.log" >&2; die "curl build failed (log: $TLSW/curl.log)"; }
  install -m 0755 "$TLSW/curl/src/curl" "$TLSW/curl.bin"
  strip "$TLSW/curl.bin"
  readelf -d "$TLSW/curl.bin" 2>/dev/null | grep -q NEEDED && die "curl is not static: $(needed "$TLSW/curl.bin" | tr '\n' ' ')"
  mv "$TLSW/curl.bin" "$TLSW/curl.static"
  { echo "curl $cver on wolfSSL $wver and zlib $zver, static (gcc -m32 -Os against musl $MUSL_VERSION)"
    echo "our patches: $(cd "$HERE/patches" && ls -- *.patch | tr '\n' ' ' | sed 's/ $//')"
    echo "wolfSSL ./configure ${WOLFSSL_CONFIG[*]} CFLAGS+=${WOLFSSL_DEFINES[*]}"
    echo "curl ./configure --with-wolfssl --with-zlib ${CURL_CONFIG[*]}"
    sed -n '/Configured to build curl/,/Features:/p' "$TLSW/curl.log" | grep -E '^ *(curl version|SSL|resolver|Protocols|Features):' ; } > "$TLSW/record"
  echo "$stamp" > "$TLSW/stamp"
}

# ---------------------------------------------------------------- 7. root filesystem + cpio
ROOT=$WORK/rootfs
bb_applets() {   # the NUL-separated, sorted applet name table starts with "[\0[[\0"
  local off
  off=$(LC_ALL=C grep -obUaP '\x5b\x00\x5b\x5b\x00' "$1" | head -n1 | cut -d: -f1)
  [ -n "$off" ] || return 0
  tail -c +"$((off + 1))" "$1" | head -c 32768 | tr '\0' '\n' | awk 'NF == 0 { exit } { print }'
}
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
build_rootfs() {
  rm -rf "$ROOT"; mkdir -p "$ROOT"
  cd "$ROOT"
  mkdir -p usr/bin usr/lib dev proc sys tmp run root mnt/tab etc/ssl/certs etc/tab var
  ln -s usr/bin bin; ln -s usr/bin sbin; ln -s bin usr/sbin; ln -s usr/lib lib; ln -s ../run var/run
  chmod 1777 tmp; chmod 0700 root
  # busybox (static) and its applet links, made here rather than at boot (saves ~1 s).
  # The build host may not run i386 binaries, so the applet list is read from the
  # binary's applet name table instead of `busybox --list-full`. All links go in /usr/bin
  # (/bin, /sbin and /usr/sbin point there).
  install -m 0755 "$BBW/busybox.static" usr/bin/busybox
  local applet n_applets=0
  while read -r applet; do
    [ -e "usr/bin/$applet" ] || ln -s /usr/bin/busybox "usr/bin/$applet"
    n_applets=$((n_applets + 1))
  done < <(bb_applets usr/bin/busybox)
  [ "$n_applets" -gt 100 ] || die "busybox applet table not found or too short ($n_applets)"
  local a; for a in nslookup nc unshare ping wget ip ifconfig route timeout sha256sum base64 setsid cttyhack mount hostname; do
    [ -L "usr/bin/$a" ] || die "busybox lacks applet '$a' (guest/busybox.deny?)"
  done
  # curl: static, built above (build_curl); no shared library in the image at all. The
  # command /usr/bin/curl is src/curl.c, which runs it with the TLS session file (installed below).
  install -D -m 0755 "$TLSW/curl.static" usr/libexec/curl
  # tab-keep (src/libcurl/tab-keep.c) is the same program under another name.
  ln -s ../libexec/curl usr/bin/tab-keep
  # No CA bundle: the guest trusts the page's session CA only (/init; guest/README.md, "TLS trust").
  # the project's programs and /init
  install -m 0755 "$WORK/bin/tab-tools" usr/bin/tab-tools
  local tool; for tool in "${TAB_TOOLS[@]}"; do ln -s tab-tools "usr/bin/$tool"; done
  install -m 0755 "$HERE/rootfs/init" init
  cp -a "$HERE/rootfs/etc/." etc/
  install -m 0755 "$HERE"/rootfs/usr/bin/* usr/bin/
  cd - >/dev/null
}
# newc cpio, uncompressed, owned by root, fixed mtimes, sorted: written by the kernel's own
# usr/gen_init_cpio so that no root privileges are needed for /dev/console.
write_cpio() {
  local spec=$WORK/initramfs.spec p mode
  local GEN=$WORK/gen_init_cpio
  [ "$GEN" -nt "$KSRC/usr/gen_init_cpio.c" ] || gcc -O2 -o "$GEN" "$KSRC/usr/gen_init_cpio.c"
  {
    (cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort) | while read -r p; do
      p=${p#.}
      mode=$(stat -c '%a' "$ROOT$p")
      if [ -L "$ROOT$p" ]; then echo "slink $p $(readlink "$ROOT$p") 0777 0 0"
      elif [ -d "$ROOT$p" ]; then echo "dir $p $mode 0 0"
      else echo "file $p $ROOT$p $mode 0 0"; fi
    done
    echo "nod /dev/console 0600 0 0 c 5 1"   # after "dir /dev"; the kernel opens it for /init's stdio
  } > "$spec"
  "$GEN" -t "$SOURCE_DATE_EPOCH" "$spec" > "$WORK/initramfs.cpio"
}

# ---------------------------------------------------------------- 8. outputs
# vendor/guest holds initramfs.cpio.zst, not the raw cpio: v86 0.5.462 decompresses a
# ".zst" initrd URL itself (V86({initrd: {url, size}}) with size = uncompressed bytes, see
# README.md), and the raw cpio is over 20 MB. manifest.json records the uncompressed size.
VENDOR_FILES=(bzImage initramfs.cpio.zst seabios.bin vgabios.bin)
publish() {
  local stage=$WORK/out; rm -rf "$stage"; mkdir -p "$stage"
  cp "$KOBJ/arch/x86/boot/bzImage" "$stage/bzImage"
  if [ -f "$WORK/initramfs.cpio.zst" ] && [ "$WORK/initramfs.cpio.zst" -nt "$WORK/initramfs.cpio" ] &&
     [ "$(cat "$WORK/initramfs.cpio.zst.src" 2>/dev/null)" = "$(sha256sum < "$WORK/initramfs.cpio")" ]; then
    log "initramfs.cpio.zst: up to date"
  else
    log "zstd -${ZSTD_LEVEL:-19} initramfs.cpio"
    zstd -q -f -"${ZSTD_LEVEL:-19}" -T0 "$WORK/initramfs.cpio" -o "$WORK/initramfs.cpio.zst"
    sha256sum < "$WORK/initramfs.cpio" > "$WORK/initramfs.cpio.zst.src"
  fi
  cp "$WORK/initramfs.cpio.zst" "$stage/initramfs.cpio.zst"
  cp /usr/share/seabios/bios.bin "$stage/seabios.bin"
  cp /usr/share/seabios/vgabios-stdvga.bin "$stage/vgabios.bin"
  write_manifest > "$stage/manifest.json"
  local changed=0 f
  for f in "${VENDOR_FILES[@]}" manifest.json; do
    cmp -s "$stage/$f" "$OUT/$f" || changed=1
  done
  [ -f "$OUT/BUILD-INFO" ] && [ -f "$OUT/SHA256SUMS" ] || changed=1
  if [ "$changed" = 0 ]; then
    log "vendor/guest is up to date (identical bytes); BUILD-INFO kept"
  else
    rm -f "$OUT/initramfs.cpio"
    for f in "${VENDOR_FILES[@]}" manifest.json; do cp "$stage/$f" "$OUT/$f"; done
    write_build_info > "$OUT/BUILD-INFO"
    (cd "$OUT" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
  fi
  (cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || die "SHA256SUMS does not verify"
  log "raw initramfs (not committed): $WORK/initramfs.cpio ($(stat -c %s "$WORK/initramfs.cpio") bytes)"
  log "done in $(( $(date +%s) - T0 )) s: $(cd "$OUT" && ls -l | awk 'NR>1{printf "%s=%s ", $9, $5}')"
}
# What a host needs to boot the image without reading BUILD-INFO. cmdline and memory_size are the
# page's machine (src/machine/machine.ts); the shipped state's state.json records it too.
write_manifest() {
  local kver; kver=$(sed -n 's/^# Linux\/[^ ]* \([^ ]*\) Kernel Configuration/\1/p' "$KOBJ/.config")
  cat <<JSON
{
  "kernel": { "file": "bzImage", "version": "$kver", "sha256": "$(sha256sum < "$KOBJ/arch/x86/boot/bzImage" | cut -c1-64)" },
  "initrd": { "file": "initramfs.cpio.zst", "size": $(stat -c %s "$WORK/initramfs.cpio"), "sha256_uncompressed": "$(sha256sum < "$WORK/initramfs.cpio" | cut -c1-64)" },
  "bios": "seabios.bin",
  "vga_bios": "vgabios.bin",
  "cmdline": "console=ttyS0 quiet tsc=reliable random.trust_cpu=on init_on_alloc=1",
  "memory_size": 100663296,
  "ready": "the first OSC 133;B mark (the end of the first prompt; guest/README.md, shell integration)",
  "prompt": "guest:~# ",
  "proxy": "http://10.0.2.2:3128",
  "guest_ip": "10.0.2.15",
  "ninep_tag": "host9p",
  "ca_path_in_share": "tls/ca.pem"
}
JSON
}
write_build_info() {
  echo "Linux in a tab: guest image build record"
  echo "build date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "build time: $(( $(date +%s) - T0 )) s (this run of guest/build.sh; kernel compiled in this run: ${KERNEL_BUILT:-no}${KERNEL_REUSED:+, the committed bzImage reused after checking its inputs})"
  echo "kernel stamp: $KSTAMP"
  echo "host: $(. /etc/os-release; echo "$PRETTY_NAME") $(uname -m)"
  echo "gcc: $(gcc --version | head -n1)"
  echo "binutils: $(ld --version | head -n1)"
  echo "SOURCE_DATE_EPOCH: $SOURCE_DATE_EPOCH"
  echo "package source: $MIRROR $SUITE main (i386); the kernel: $KVER_PKG $KERNEL_VERSION from $KSUITE main"
  echo
  echo "== Debian packages (name version): linux-source, unpacked for the kernel; musl-dev and"
  echo "== linux-libc-dev, the C library and kernel headers the guest's programs are built with;"
  echo "== source packages (marked) built into the guest's busybox and curl"
  sort -u "$PKGLOG" "$WORK/unpacked.pkgs"
  echo
  echo "== the guest's busybox (built from the source package above)"
  cat "$BBW/record"
  echo
  echo "== the guest's curl (built from the source packages above)"
  cat "$TLSW/record"
  echo
  echo "== host packages used"
  dpkg-query -W -f='${Package} ${Version}\n' seabios gcc-12 gcc-multilib libc6-dev-i386 binutils autoconf automake libtool
  echo
  echo "== output sizes (bytes)"
  (cd "$WORK/out" && for f in *; do printf '%s %s\n' "$f" "$(stat -c %s "$f")"; done)
  echo
  echo "== initramfs contents"
  (cd "$ROOT" && find . -mindepth 1 \( -type f -o -type l \) ! -lname /usr/bin/busybox -printf '%P %s\n' | LC_ALL=C sort)
  echo "(plus $(find "$ROOT" -lname /usr/bin/busybox | wc -l) busybox applet links)"
  echo
  echo "== kernel .config"
  cat "$KOBJ/.config"
}

# ---------------------------------------------------------------- 9. the shipped post-boot state
# A first visit restores this instead of booting (guest/README.md, "The shipped state"). It is
# made by booting the published image in v86 under Node on the page's own machine options
# (scripts/make-guest-state.ts), so it needs the repository's node_modules (npm install). It is
# remade when the image files or the machine changed (state.json records both), or always with
# --state-only; a state is not byte-reproducible (it holds a running machine), so an unchanged
# image keeps the committed one.
make_state() {
  command -v node >/dev/null || die "the shipped state needs Node (npm install in $REPO first)"
  [ -f "$REPO/node_modules/v86/build/v86.wasm" ] || die "the shipped state needs v86 from npm: run npm install in $REPO"
  local stale=--if-stale; [ "$STATE_ONLY" = 1 ] && stale=
  (cd "$REPO" && ZSTD_LEVEL=${ZSTD_LEVEL:-19} node_modules/.bin/tsx scripts/make-guest-state.ts $stale --dir "$OUT" --work "$WORK") ||
    die "making the shipped state failed"
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
  (cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || die "SHA256SUMS does not verify"
  log "state: $(cd "$OUT" && ls -l state.bin.zst | awk '{print $5}') bytes (state.bin.zst); SHA256SUMS rewritten"
}

# ---------------------------------------------------------------- main
if [ "$STATE_ONLY" = 1 ]; then
  (cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || die "the committed image does not verify against SHA256SUMS"
  make_state
  exit 0
fi
host_deps
apt_setup
: > "$PKGLOG"; : > "$WORK/unpacked.pkgs"
KSTAMP_BEFORE=$(cat "$WORK/kernel/stamp" 2>/dev/null || true)
build_kernel
[ -n "${KERNEL_REUSED:-}" ] || [ "$(cat "$WORK/kernel/stamp")" = "$KSTAMP_BEFORE" ] || KERNEL_BUILT=yes
[ "$KERNEL_ONLY" = 1 ] && { log "kernel only: $KOBJ/arch/x86/boot/bzImage"; exit 0; }
setup_musl
build_busybox
build_programs
build_curl
build_rootfs
write_cpio
publish
make_state
