#!/bin/sh
# SPDX-License-Identifier: MIT
# cudart.sh: the real CUDA runtime (libcudart) reaching the driver as in a
# PyTorch job: RTLD_LOCAL dlopen, cuGetProcAddress_v2, the self-lookup of
# "cuGetProcAddress", ~440 lookups through what came back. Against the
# toolkit's stub, the fake driver, and a fake driver older than the runtime.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.inc"

if [ -z "$CUDART_DIR" ] || [ "$(run_bare "$CT/cudart_probe" count >/dev/null 2>&1; echo $?)" = 77 ]; then
	skip cudart "no libcudart to test with"
	finish
fi

# 1. The stub as libcuda.so.1: the runtime falls back to dlsym per symbol
#    and stops at the stub's 34. The program sees exactly that, traced or not.
stub=
for s in "${CUDA_HOME:-/usr/local/cuda}/lib64/stubs/libcuda.so" "${CUDA_HOME:-/usr/local/cuda}/lib/stubs/libcuda.so"; do
	[ -e "$s" ] && stub=$s && break
done
if [ -z "$stub" ]; then
	skip cudart_stub "no stub libcuda.so in the toolkit"
else
	mkdir -p "$T/stub"
	ln -s "$stub" "$T/stub/libcuda.so.1"
	bare=$(LD_LIBRARY_PATH="$T/stub:$CUDART_DIR" run_bare "$CT/cudart_probe" count 2>&1)
	traced=$(LD_LIBRARY_PATH="$T/stub:$CUDART_DIR" run_traced "$T/s" "$CT/cudart_probe" count 2>&1)
	check cudart_stub_same_answer [ "$bare" = "$traced" ]
	check cudart_stub_answer_is_34 [ "$bare" = "cudaGetDeviceCount -> 34 count -1" ]
	check cudart_stub_cuda_init_error tq "$T/s" "(
		(lambda e: e is not None and e['result'] == 34 and e['error'] == 'CUDA_ERROR_STUB_LIBRARY'
		 and e['stub'] is True and e['libcuda'] == '$T/stub/libcuda.so.1' and e['via'] == 'dlsym'
		 and 'libcudart' in e['caller'])(ev('phase', phase='cuda_init', state='error')))"
fi

# 2. The fake driver: cuInit reached through the resolver, and the lookups
#    made after the self-lookup came to us too (cuDriverGetVersion is asked
#    for after it: its version line proves it). Then the program goes on
#    through the driver: a bind and cuStreamSynchronize with flags 0 and 2,
#    each reaching its own real function; the 11030 resolver called with a
#    poisoned fifth argument.
bare=$(run_bare "$CT/cudart_probe" lookups 2>&1)
traced=$(FAKE_CUDA_LOG=$T/fake.log run_traced "$T/f" "$CT/cudart_probe" lookups 2>&1)
check cudart_fake_same_output [ "$bare" = "$traced" ]
case $traced in
*"gpa4 canary intact"*) pass cudart_gpa4_four_arguments ;;
*) fail cudart_gpa4_four_arguments "$traced" ;;
esac
check cudart_fake_cuda_init tq "$T/f" "(
	(lambda b, e: b['via'] == 'cuGetProcAddress' and 'libcudart' in b['caller']
	 and e['result'] == 0 and e['error'] == 'CUDA_SUCCESS' and e['stub'] is False
	 and e['libcuda'].endswith('fake_cuda/libcuda.so.1') and e['driver_version'] == 13000
	 and e['runtime_version'] == 13000 and e['lookups'] >= 400)(
	 ev('phase', phase='cuda_init', state='begin'), ev('phase', phase='cuda_init', state='end')))"
check cudart_fake_versions tq "$T/f" "(
	ev('version', what='cuda_driver', value=13000)['provider'].endswith('libcuda.so.1')
	and 'libcudart' in ev('version', what='cuda_runtime', value=13000)['provider'])"
check cudart_fake_sync_variants tq "$T/f" "(
	ev('call', name='cuStreamSynchronize', state='end', result=0) is not None
	and ev('call', name='cuStreamSynchronize_ptsz', state='end', result=0) is not None
	and ev('phase', phase='device', state='end')['uuid'].startswith('GPU-'))"
check cudart_fake_reached_legacy grep -qE '^cuStreamSynchronize pid=[0-9]+ stream=\(nil\) -> 0$' "$T/fake.log"
check cudart_fake_reached_ptsz grep -qE '^cuStreamSynchronize_ptsz pid=[0-9]+ stream=\(nil\) -> 0$' "$T/fake.log"

# 3. A driver older than the runtime: the runtime answers 35 without
#    calling cuInit; the versions say why.
bare=$(FAKE_CUDA_DRIVER_VERSION=12080 run_bare "$CT/cudart_probe" count 2>&1)
traced=$(FAKE_CUDA_DRIVER_VERSION=12080 run_traced "$T/o" "$CT/cudart_probe" count 2>&1)
check cudart_old_driver_same_answer [ "$bare" = "$traced" ]
check cudart_old_driver_answer_is_35 [ "$bare" = "cudaGetDeviceCount -> 35 count -1" ]
check cudart_old_driver_versions tq "$T/o" "(
	ev('version', what='cuda_driver')['value'] == 12080
	and ev('version', what='cuda_runtime')['value'] == 13000)"

finish
