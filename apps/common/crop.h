// A dense copy of the top-left corner of an image, so the tests also run
// the pipelines on sizes that the schedules' tiles and vectors do not divide.
#ifndef LOOM_APPS_CROP_H
#define LOOM_APPS_CROP_H

#include <vector>

#include <loom/runtime/Buffer.h>

namespace apps {

/** The first width x height pixels (all channels) of image, as a new buffer. */
template<typename T>
loom::Runtime::Buffer<T> crop(const loom::Runtime::Buffer<T> &image, int width, int height) {
    std::vector<int> sizes{width, height};
    for (int d = 2; d < image.dimensions(); d++) sizes.push_back(image.dim(d).extent());
    loom::Runtime::Buffer<T> result(sizes);
    result.for_each_element([&](const std::vector<int> &at) { result(at) = image(at); });
    return result;
}

}  // namespace apps

#endif
