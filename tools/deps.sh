# tools/deps.sh -- sourced by main.sh and test.sh: installs the Debian packages shido needs
# when any is missing (run as root on Debian 12), and picks the build parallelism.
shido_install_deps() {
    local need=() pkg
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
    done
    if ((${#need[@]})); then
        echo "shido: installing missing Debian packages: ${need[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
}
SHIDO_BUILD_PACKAGES=(cmake make gcc pkg-config check zlib1g-dev libopenblas-dev libcjson-dev
                      libcairo2-dev libfontconfig-dev)
SHIDO_JOBS=$(nproc 2>/dev/null || echo 2)
