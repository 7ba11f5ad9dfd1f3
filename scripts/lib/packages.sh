# Sourced by the scripts that install Debian packages (scripts/build, scripts/firmware): installs
# the missing ones among its arguments, through sudo when not root. Installs nothing when all are
# present, so re-running a script costs one dpkg-query per package.

# loom_install_packages PKG...
loom_install_packages() {
  command -v dpkg-query >/dev/null || {
    echo "loom: dpkg-query not found: this script expects Debian; install $* yourself" >&2
    return 1
  }
  local missing=() pkg
  for pkg in "$@"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" != "install ok installed" ]]; then
      missing+=("$pkg")
    fi
  done
  ((${#missing[@]})) || return 0

  local noun=packages
  ((${#missing[@]} == 1)) && noun=package
  echo "loom: installing ${#missing[@]} $noun: ${missing[*]}"
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || {
      echo "loom: not root and sudo is missing; install as root: ${missing[*]}" >&2
      return 1
    }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
