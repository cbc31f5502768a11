// The data movement of PyPTO's all_to_all_v builtin as it was measured for
// the baseline of hw-native-sys/pypto#2521 (comment of 2026-09-11), written
// against our kernel API so the simulator can run it: one AIV block, a
// [1, SIZE] staging tile, and per destination (self included) a count
// notify plus ONE TPUT of the full max_recv block, whatever the count;
// then one self-clearing credit barrier. It is not our builtin
// (runtime/builtins/all_to_all_v), which stages 64 KiB and splits lanes.
#ifndef PTO_TESTING_CALIBRATION_MEASURED_ALL_TO_ALL_V_H_
#define PTO_TESTING_CALIBRATION_MEASURED_ALL_TO_ALL_V_H_

#include <cstdint>

namespace pto::calibration {

// Args: t0 = input [P blocks], t1 = target [P blocks], t2 = signal [P] int32,
// t3 = send_counts [P] int32, t4 = recv_counts [P] int32 (all windows);
// s0 = CommContext*, s1 = block bytes per destination (max_recv * SIZE),
// s2 = staging tile bytes (SIZE elements of INT8).
void MeasuredAllToAllVKernel(int64_t* args);

}  // namespace pto::calibration

#endif  // PTO_TESTING_CALIBRATION_MEASURED_ALL_TO_ALL_V_H_
