package dev.delayjobs.bridge;

import com.esotericsoftware.kryo.io.Input;

/**
 * Kryo's input over one element's bytes that refuses a length the bytes left cannot hold before
 * Kryo allocates for it: {@code readLongs(n)} and the like, and strings, whose character count
 * comes first. Every value takes a byte of the input at least; see {@link ReadLimits}.
 */
final class BoundedKryoInput extends Input {

    private final ReadLimits.Tally tally;

    BoundedKryoInput(byte[] element, ReadLimits limits) {
        super(element);
        this.tally = new ReadLimits.Tally(limits, element.length);
    }

    /** Refuses {@code values} values the element cannot hold; see {@link ReadLimits.Tally#declare}. */
    void declare(long values, String what, int bytesEach, int width) {
        String refusal = tally.declare(values, what, bytesEach, width, limit - position);
        if (refusal != null) {
            throw new LimitException(refusal);
        }
    }

    @Override
    public byte[] readBytes(int length) {
        declare(length, "bytes", 1, 1);
        return super.readBytes(length);
    }

    @Override
    public int[] readInts(int length) {
        declare(length, "int values", 1, 4);
        return super.readInts(length);
    }

    @Override
    public int[] readInts(int length, boolean optimizePositive) {
        declare(length, "int values", 1, 4);
        return super.readInts(length, optimizePositive);
    }

    @Override
    public long[] readLongs(int length) {
        declare(length, "long values", 1, 8);
        return super.readLongs(length);
    }

    @Override
    public long[] readLongs(int length, boolean optimizePositive) {
        declare(length, "long values", 1, 8);
        return super.readLongs(length, optimizePositive);
    }

    @Override
    public float[] readFloats(int length) {
        declare(length, "float values", 1, 4);
        return super.readFloats(length);
    }

    @Override
    public double[] readDoubles(int length) {
        declare(length, "double values", 1, 8);
        return super.readDoubles(length);
    }

    @Override
    public short[] readShorts(int length) {
        declare(length, "short values", 1, 2);
        return super.readShorts(length);
    }

    @Override
    public char[] readChars(int length) {
        declare(length, "char values", 1, 2);
        return super.readChars(length);
    }

    @Override
    public boolean[] readBooleans(int length) {
        declare(length, "boolean values", 1, 1);
        return super.readBooleans(length);
    }

    @Override
    public String readString() {
        declareCharacters();
        return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
        declareCharacters();
        return super.readStringBuilder();
    }

    /**
     * A UTF-8 string starts with its character count (plus one), which Kryo allocates for; an ASCII
     * one is read up to its last byte, growing as it goes, so it needs no check.
     */
    private void declareCharacters() {
        if (position == limit || (buffer[position] & 0x80) == 0) {
            return;
        }
        int start = position;
        int count = readVarIntFlag(true);
        position = start;
        declare(Math.max(0, count - 1), "characters", 1, 2);
    }

    /** A length the element cannot hold. */
    static final class LimitException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        LimitException(String message) {
            super(message, null, false, false);
        }
    }
}
