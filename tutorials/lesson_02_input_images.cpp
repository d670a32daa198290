// Lesson 2: input images.
//
// Pipelines read data from two kinds of input:
//   Buffer<T>    memory you own; a pipeline that reads it is bound to it;
//   ImageParam   a placeholder with a type and a rank, given a buffer with
//                set() before each run; a new buffer never recompiles.
// This lesson brightens a synthetic 8-bit image both ways, shows why the
// element type matters (uint8_t arithmetic wraps), and blurs it with a
// boundary condition so that reads past the edge are defined.

#include <cstdint>
#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

namespace {

// Builds a synthetic "photo": a diagonal ramp with a bright square in it.
Buffer<uint8_t> make_image(int width, int height) {
    Buffer<uint8_t> image(width, height);
    image.for_each_element([&](int x, int y) {
        bool in_square = x >= width / 4 && x < width / 2 && y >= height / 4 && y < height / 2;
        image(x, y) = in_square ? 240 : (uint8_t)((x * 7 + y * 3) % 200);
    });
    return image;
}

int brighten_reference(int v) {
    float scaled = v * 1.5f;
    return scaled > 255.0f ? 255 : (int)scaled;
}

}  // namespace

int main() {
    const int width = 32, height = 16;
    Buffer<uint8_t> image = make_image(width, height);
    Var x("x"), y("y");
    int mismatches = 0;

    // --- Reading a Buffer directly ---------------------------------------
    // image(x, y) with Vars is an Expr of type uint8. Arithmetic on uint8
    // stays uint8 and wraps (240 * 2 is 224), so widen before scaling: the
    // float constant makes the product a float, min() keeps it in range,
    // and cast<uint8_t> brings it back to 8 bits.
    Func brighter("brighter");
    Expr value = cast<float>(image(x, y));
    brighter(x, y) = cast<uint8_t>(min(value * 1.5f, 255.0f));
    Buffer<uint8_t> bright = brighter.realize({width, height});

    Func wrapped("wrapped");
    wrapped(x, y) = image(x, y) * 2;  // uint8 * int literal is uint8: wraps
    Buffer<uint8_t> wrap = wrapped.realize({width, height});
    std::printf("pixel (10, 6): input %d, brighter %d, doubled in uint8 %d\n", image(10, 6), bright(10, 6),
                wrap(10, 6));

    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            if (bright(i, j) != brighten_reference(image(i, j))) mismatches++;
            if (wrap(i, j) != (uint8_t)(image(i, j) * 2)) mismatches++;
        }
    }

    // --- An ImageParam: the same algorithm for any input ----------------
    // The buffer is supplied at run time, so one compiled pipeline serves
    // images of any size. Its shape is available as Exprs (width(), ...).
    ImageParam input(UInt(8), 2, "input");
    Func brighter2("brighter2");
    brighter2(x, y) = cast<uint8_t>(min(cast<float>(input(x, y)) * 1.5f, 255.0f));

    input.set(image);
    Buffer<uint8_t> first = brighter2.realize({width, height});
    Buffer<uint8_t> small = make_image(8, 4);
    input.set(small);  // another image, another size: no recompilation
    Buffer<uint8_t> second = brighter2.realize({8, 4});
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            if (first(i, j) != brighten_reference(image(i, j))) mismatches++;
        }
    }
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 8; i++) {
            if (second(i, j) != brighten_reference(small(i, j))) mismatches++;
        }
    }

    // --- Boundary conditions ----------------------------------------------
    // A horizontal blur reads x - 1 and x + 1. Over the whole image that
    // reads one pixel past each edge: Loom checks the input buffer covers
    // what the pipeline reads and refuses to run otherwise.
    input.set(image);
    Func naive_blur("naive_blur");
    naive_blur(x, y) = (cast<uint16_t>(input(x - 1, y)) + input(x, y) + input(x + 1, y)) / 3;
    bool refused = false;
    try {
        naive_blur.realize({width, height});
    } catch (const RuntimeError &e) {
        refused = true;
        std::printf("Without a boundary condition the run is refused:\n  %s\n", e.what());
    }
    if (!refused) {
        std::printf("expected the out-of-bounds blur to be refused\n");
        mismatches++;
    }

    // repeat_edge(input) is a Func equal to input inside its bounds and to
    // the nearest edge pixel outside. constant_exterior, repeat_image,
    // mirror_image and mirror_interior are the other choices.
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func blur("blur");
    blur(x, y) = cast<uint8_t>((cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
    Buffer<uint8_t> blurred = blur.realize({width, height});

    Func padded = BoundaryConditions::constant_exterior(input, 0);
    Func border("border");
    border(x, y) = padded(x - 2, y - 2);  // a shifted copy with a black border
    Buffer<uint8_t> shifted = border.realize({width, height});

    auto clamp_x = [&](int i) { return i < 0 ? 0 : (i >= width ? width - 1 : i); };
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            int sum = image(clamp_x(i - 1), j) + image(i, j) + image(clamp_x(i + 1), j);
            if (blurred(i, j) != sum / 3) mismatches++;
            int expected = (i >= 2 && j >= 2) ? image(i - 2, j - 2) : 0;
            if (shifted(i, j) != expected) mismatches++;
        }
    }
    std::printf("row 0 of the blur: ");
    for (int i = 0; i < 8; i++) std::printf("%d ", blurred(i, 0));
    std::printf("...\n");

    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
