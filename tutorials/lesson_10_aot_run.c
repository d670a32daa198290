/* Lesson 10: ahead-of-time compilation, part 2 (the program that calls it).
 *
 * This is C, compiled and linked against lesson_10_brighten.a, which
 * lesson_10_aot_compilation wrote at build time. The header declares
 *
 *     int lesson_10_brighten(struct loom_buffer_t *input, uint8_t offset,
 *                            struct loom_buffer_t *brighter);
 *
 * and carries the runtime's types (loom_buffer_t and friends). A
 * loom_buffer_t describes memory: a host pointer, an element type, and per
 * dimension a min, an extent and a stride (in elements). The function
 * returns 0, or a negative loom_error_code_t after reporting a message
 * through the error handler (stderr unless loom_set_error_handler replaces
 * it). It never reads or writes outside the buffers it is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_10_brighten.h"

enum { W = 40, H = 10 };

static void describe_2d(struct loom_buffer_t *b, struct loom_dimension_t *dims, uint8_t *host, int min_x,
                        int width, int min_y, int height) {
    memset(b, 0, sizeof(*b));
    b->host = host;
    b->type.code = loom_type_uint;
    b->type.bits = 8;
    b->type.lanes = 1;
    b->dimensions = 2;
    b->dim = dims;
    memset(dims, 0, 2 * sizeof(dims[0]));
    dims[0].min = min_x;
    dims[0].extent = width;
    dims[0].stride = 1;
    dims[1].min = min_y;
    dims[1].extent = height;
    dims[1].stride = width;
}

static char last_error[1024];

static void keep_error(void *user_context, const char *message) {
    (void)user_context;
    snprintf(last_error, sizeof(last_error), "%s", message);
}

int main(void) {
    static uint8_t input_pixels[W * H], output_pixels[W * H];
    struct loom_dimension_t input_dims[2], output_dims[2];
    struct loom_buffer_t input, output;
    int x, y, mismatches = 0, rc;
    const uint8_t offset = 100;

    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++) input_pixels[x + y * W] = (uint8_t)((x * 13 + y * 31) % 256);
    }
    describe_2d(&input, input_dims, input_pixels, 0, W, 0, H);
    describe_2d(&output, output_dims, output_pixels, 0, W, 0, H);

    rc = lesson_10_brighten(&input, offset, &output);
    printf("lesson_10_brighten returned %d\n", rc);
    if (rc != 0) return 1;

    /* The same computation as a plain C loop. */
    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++) {
            int sum = input_pixels[x + y * W] + offset;
            uint8_t expected = (uint8_t)(y % 2 == 1 ? (sum > 255 ? 255 : sum) : 0);
            if (output_pixels[x + y * W] != expected) mismatches++;
        }
    }
    printf("row 1, first 8 pixels:");
    for (x = 0; x < 8; x++) printf(" %d", output_pixels[x + W]);
    printf("\n");

    /* Asking for more output than the input covers is refused with a
     * negative code and a message naming the buffer. */
    loom_set_error_handler(keep_error);
    describe_2d(&output, output_dims, output_pixels, 1, W, 0, H);
    rc = lesson_10_brighten(&input, offset, &output);
    printf("a window shifted one pixel right: returned %d: %s\n", rc, last_error);
    if (rc >= 0) mismatches++;
    loom_set_error_handler(NULL);

    printf("%s: %d mismatches against the C loop\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
