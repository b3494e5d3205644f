package dev.delayjobs.bridge;

/**
 * How much a binary codec may build while it reads one element, derived from
 * {@code delay.max-payload-size} (M): the element's bytes come from a list anyone with write access
 * can fill, and a few bytes can declare an array of two billion values, which the codecs allocate
 * before they read a single value.
 *
 * <ul>
 * <li>An element over 4 x M bytes is not read at all: a payload whose JSON fits M does not need
 * more in any codec the bridge reads (a class descriptor is written once per class).</li>
 * <li>An array (or a collection, or a string) longer than M values is refused: as JSON each value
 * takes at least one character, so it could not become a payload.</li>
 * <li>An array, collection or string may not declare more values than the bytes left in the element
 * hold (one byte a value at least; the exact width for arrays of primitives; a hash table's buckets
 * are up to 8 per entry), and everything one element allocates that way is capped at
 * {@link #allocationBudget} (32 bytes per byte of the element, plus 64 KiB): a 27-byte element
 * cannot make the reader allocate more than about 65 KiB.</li>
 * <li>Objects nest at most {@link #MAX_DEPTH} deep (a deeper graph would overflow the stack).</li>
 * </ul>
 */
record ReadLimits(long maxPayloadBytes) {

    static final int MAX_DEPTH = 64;

    /** Bytes of arrays one element may allocate, per byte of the element, plus {@link #BASE_ALLOCATION}. */
    private static final long ALLOCATION_PER_BYTE = 32;
    private static final long BASE_ALLOCATION = 64 * 1024;

    /** Bytes an element may have: longer ones are dead jobs, unread. */
    long maxElementBytes() {
        return Math.min(Integer.MAX_VALUE, 4 * maxPayloadBytes);
    }

    /** Values an array, collection or string may declare. */
    long maxValues() {
        return maxPayloadBytes;
    }

    /** Bytes of arrays the reader may allocate for an element of {@code elementBytes}. */
    static long allocationBudget(int elementBytes) {
        return ALLOCATION_PER_BYTE * elementBytes + BASE_ALLOCATION;
    }

    /** The reason an element is not read at all, or null when it may be. */
    String tooLong(int elementBytes) {
        return elementBytes <= maxElementBytes() ? null : "element is " + elementBytes + " bytes; elements over "
                + maxElementBytes() + " bytes (4 x delay.max-payload-size) are not read";
    }

    /**
     * Tracks what one read declares and allocates. {@link #declare} returns the reason to refuse,
     * or null.
     */
    static final class Tally {

        private final ReadLimits limits;
        private final int elementBytes;
        private long allocated;

        Tally(ReadLimits limits, int elementBytes) {
            this.limits = limits;
            this.elementBytes = elementBytes;
        }

        /**
         * @param values how many values the stream declares
         * @param what "long values", "elements", "characters"... for the reason
         * @param bytesEach the fewest bytes of the element each value takes (0 for hash buckets, which take none)
         * @param width bytes of memory each value takes once allocated
         * @param remaining bytes of the element not read yet
         */
        String declare(long values, String what, int bytesEach, int width, long remaining) {
            String declared = "it declares " + values + " " + what;
            if (values > limits.maxValues() * (bytesEach == 0 ? 8 : 1)) {
                return declared + ", more than delay.max-payload-size (" + limits.maxValues() + ") allows";
            }
            long needed = bytesEach == 0 ? (values + 7) / 8 : values * bytesEach;
            if (needed > remaining) {
                return declared + " in the " + remaining + " bytes left of the element";
            }
            allocated += values * width;
            if (allocated > allocationBudget(elementBytes)) {
                return declared + ", beyond the " + allocationBudget(elementBytes) + " bytes an element of "
                        + elementBytes + " bytes may allocate";
            }
            return null;
        }
    }
}
