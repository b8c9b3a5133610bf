# SPDX-License-Identifier: MIT
# The ABI checks of the build (issue 11): make fails, naming the function,
# when a prototype of the .def lists disagrees with the toolkit's nccl.h or
# cuda.h (hooks/nccl/proto_check_nccl.c, hooks/cuda/proto_check_cuda.c),
# and when a name the .def lists export is not exported by the library
# (scripts/check-lib.sh: GNU ld silently skips an unknown name of a version
# script). Each case builds only the library, into a scratch build folder,
# from a copy of the toolkit's include/ (symbolic links but for the edited
# header) or of the sources.
# limit: 240
. "$(dirname "$0")/../lib.sh"
CUDA=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$CUDA/include/nccl.h" ] || [ ! -f "$CUDA/include/cuda.h" ] ||
   [ ! -f "$CUDA/include/cuda_runtime.h" ]; then
	skip "abi" "no nccl.h, cuda.h and cuda_runtime.h under $CUDA/include"
	finish
fi

# toolkit NAME HEADER SED: $T/NAME/include, the toolkit's with HEADER edited by SED.
toolkit() {
	mkdir -p "$T/$1"
	cp -rs "$CUDA/include" "$T/$1/include"
	rm "$T/$1/include/$2"
	sed "$3" "$CUDA/include/$2" >"$T/$1/include/$2"
}

# The unchanged toolkit, copied the same way, passes both checks: what fails
# below fails because of the one edit.
toolkit same nccl.h ''
make -s -C "$ROOT" B="$T/b-same" CUDA_HOME="$T/same" \
	"$T/b-same/obj/proto/proto_check_nccl.o" "$T/b-same/obj/proto/proto_check_cuda.o" >"$T/same.out" 2>&1
check "the copied toolkit passes both prototype checks" test $? = 0

# ncclAllReduce's count as an int instead of size_t.
toolkit nccl nccl.h 's/^\(ncclResult_t  ncclAllReduce(const void\* sendbuff, void\* recvbuff, \)size_t count,/\1int count,/'
check "nccl.h edited" sh -c "! cmp -s '$CUDA/include/nccl.h' '$T/nccl/include/nccl.h'"
make -s -C "$ROOT" B="$T/b-nccl" CUDA_HOME="$T/nccl" lib >"$T/nccl.out" 2>&1
rc=$?
check "a changed ncclAllReduce in nccl.h fails make" test $rc -ne 0
check "the failure names ncclAllReduce and nccl.h" sh -c \
	"grep -q 'ncclAllReduce' '$T/nccl.out' && grep -q 'disagrees with $T/nccl/include' '$T/nccl.out'"
check "no library was linked" test ! -e "$T/b-nccl/libhangtrace.so"

# cuInit's flags as an int instead of unsigned int.
toolkit cuda cuda.h 's/^CUresult CUDAAPI cuInit(unsigned int Flags);/CUresult CUDAAPI cuInit(int Flags);/'
check "cuda.h edited" sh -c "! cmp -s '$CUDA/include/cuda.h' '$T/cuda/include/cuda.h'"
make -s -C "$ROOT" B="$T/b-cuda" CUDA_HOME="$T/cuda" lib >"$T/cuda.out" 2>&1
rc=$?
check "a changed cuInit in cuda.h fails make" test $rc -ne 0
check "the failure names cuInit" sh -c "grep -q 'cuInit' '$T/cuda.out' && grep -q 'disagrees with $T/cuda/include' '$T/cuda.out'"

# A name the lists export that nothing defines: the sources copied, one
# HT_EXPORT_ONLY entry added to hooks.def. No file defines this name.
mkdir -p "$T/src"
cp -r "$ROOT/Makefile" "$ROOT/include" "$ROOT/src" "$ROOT/hooks" "$ROOT/scripts" "$T/src/"
fake=ht_abi_test_never_defined
sed -i "s/^HT_EXPORT_ONLY(dlsym)\$/HT_EXPORT_ONLY(dlsym)\nHT_EXPORT_ONLY($fake)/" "$T/src/hooks/hooks.def"
check "the entry was added" grep -q "^HT_EXPORT_ONLY($fake)\$" "$T/src/hooks/hooks.def"
check "nothing defines it" sh -c "! grep -rq '$fake' '$ROOT/src' '$ROOT/hooks' '$ROOT/include'"
make -s -j2 -C "$T/src" B="$T/b-exp" lib >"$T/exp.out" 2>&1
rc=$?
check "an unexported .def entry fails make" test $rc -ne 0
check "the failure names the entry" grep -q "check-lib: $fake is listed in hooks/\*.def but .* does not export it" "$T/exp.out"
check "the failed library is not left behind" test ! -e "$T/b-exp/libhangtrace.so"
check "the version script listed it" grep -q "^    $fake;\$" "$T/b-exp/exports.map"
finish
