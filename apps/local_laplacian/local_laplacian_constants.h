// Constants shared by the Loom local Laplacian pipeline and its C++
// reference (which must not include Loom).
#ifndef LOOM_APPS_LOCAL_LAPLACIAN_CONSTANTS_H
#define LOOM_APPS_LOCAL_LAPLACIAN_CONSTANTS_H

namespace apps {

/** Intensity levels sampled (K). */
constexpr int kLocalLaplacianIntensityLevels = 8;

}  // namespace apps

#endif
