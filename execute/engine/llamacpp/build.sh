#!/usr/bin/env bash
# Builds llama.cpp's llama-server and llama-quantize from the pinned
# source into a cache outside the clone, keyed by the source commit and
# the backend, so a clean clone reuses an earlier build and a new pin
# never reuses an old one. A build whose configuration differs from the
# cached one's is rebuilt incrementally in place.
#
#   build.sh SRC BACKEND [CACHE_ROOT]
#
# SRC is an extracted llama.cpp tree (the clone of node-llama-cpp's
# bundle, or the trimmed tarball pack.sh writes); BACKEND is cpu or cuda.
# Says on stderr whether the build was cold; prints the bin folder as the
# last line of stdout.
set -euo pipefail
src=${1:?usage: build.sh SRC cpu|cuda [CACHE_ROOT]}
backend=${2:?usage: build.sh SRC cpu|cuda [CACHE_ROOT]}
root=${3:-${SERVELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/servelab}}
commit=$(cat "$src/.servelab-commit" 2>/dev/null || git -C "$src" rev-parse HEAD)
# No curl or openssl (servelab downloads nothing), no web UI (its build
# would fetch prebuilt assets), no tests or examples, and no
# -march=native, so a cached build moves between machines of one
# architecture.
flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF
	-DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF)
case $backend in
cpu) flags+=(-DGGML_CUDA=OFF) ;;
cuda) flags+=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS:-90}) ;;
*) echo "build.sh: backend $backend: want cpu or cuda" >&2; exit 2 ;;
esac
dir=$root/llama.cpp-${commit:0:12}-$backend
bin=$dir/build/bin
stamp="$commit ${flags[*]}"
if [[ -x $bin/llama-server && -x $bin/llama-quantize && -f $dir/done && $(cat "$dir/done") == "$stamp" ]]; then
	echo "llama.cpp ${commit:0:12} ($backend): cached build in $dir" >&2
	echo "$bin"
	exit 0
fi
for t in cmake ninja; do
	command -v $t >/dev/null || { echo "build.sh: $t is missing (Debian: apt-get install cmake ninja-build)" >&2; exit 1; }
done
mkdir -p "$dir"
# The build keeps its own copy of the source: CMake ties a build folder
# to one source path, and clones at other paths share this cache.
if [[ ! -e $dir/src ]]; then
	cp -a "$src" "$dir/src.tmp" && mv "$dir/src.tmp" "$dir/src"
elif [[ $(cat "$dir/src/.servelab-commit" 2>/dev/null || git -C "$dir/src" rev-parse HEAD) != "$commit" ]]; then
	echo "build.sh: $dir/src is not llama.cpp $commit; move $dir away" >&2
	exit 1
fi
src=$dir/src
if [[ -f $dir/done ]]; then
	echo "llama.cpp ${commit:0:12} ($backend): configuration changed, rebuilding $dir incrementally" >&2
else
	echo "llama.cpp ${commit:0:12} ($backend): COLD build into $dir (minutes; later runs reuse it)" >&2
fi
rm -f "$dir/done"
began=$(date +%s)
cmake -S "$src" -B "$dir/build" "${flags[@]}" >"$dir/configure.log" 2>&1 ||
	{ tail -30 "$dir/configure.log" >&2; exit 1; }
# llama.cpp's build info asks git for the commit; the trimmed tarball has
# no .git, and git would then name an enclosing repository's commit.
# Stamp the pinned one, so `llama-server --version` names the source.
sed -i "s/LLAMA_COMMIT = \"[^\"]*\"/LLAMA_COMMIT = \"${commit:0:12}\"/" "$dir/build/common/build-info.cpp"
ninja -C "$dir/build" -j "${JOBS:-$(nproc)}" llama-server llama-quantize >"$dir/build.log" 2>&1 ||
	{ tail -30 "$dir/build.log" >&2; exit 1; }
echo "$stamp" >"$dir/done.tmp" && mv "$dir/done.tmp" "$dir/done"
echo "llama.cpp ${commit:0:12} ($backend): built in $(($(date +%s) - began)) s" >&2
echo "$bin"
