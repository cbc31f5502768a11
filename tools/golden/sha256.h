// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the digest a
// golden keeps of its inputs, outputs and platform. Our own implementation,
// so goldens need no crypto library.
#ifndef PTO_TESTING_GOLDEN_SHA256_H_
#define PTO_TESTING_GOLDEN_SHA256_H_

#include <string>
#include <string_view>

namespace pto::golden {

std::string Sha256Hex(std::string_view bytes);

}  // namespace pto::golden

#endif  // PTO_TESTING_GOLDEN_SHA256_H_
