package dev.outbox.api;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.TreeNode;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Checks every value while Jackson writes an event, so that what is recorded is what {@code jsonb}
 * keeps and what a reader with the same {@link StreamReadConstraints} can read back (the rules are
 * listed on {@link JacksonEventSerializer}). It keeps the path of the value being written: the keys
 * of a {@code Map} or {@code JsonNode} are payload data and are named by position
 * ({@code $.labels.<key #2>}); property names of records and beans are printed ({@code $.lines[3].price}).
 */
final class CheckingGenerator extends JsonGeneratorDelegate {

    private boolean wroteNull;

    /** PostgreSQL's numeric keeps at most this many digits before the decimal point ... */
    private static final int PG_NUMERIC_MAX_INTEGER_DIGITS = 131_072;
    /** ... and this many after it. */
    private static final int PG_NUMERIC_MAX_FRACTION_DIGITS = 16_383;
    /** Below this many digits a double's plain form may not fit (Double.MIN_VALUE prints 326 digits). */
    private static final int LONGEST_DOUBLE_DIGITS = 330;

    /** One open object or array: which entry is being written, and whether its keys are data. */
    private static final class Frame {
        final boolean array;
        final boolean dataKeys;
        int index = -1;

        @Nullable
        String name;

        Frame(boolean array, boolean dataKeys) {
            this.array = array;
            this.dataKeys = dataKeys;
        }
    }

    /** A refusal of ours, carried through Jackson's exception wrapping. */
    static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String path;
        final String problem;

        Refusal(String path, String problem) {
            super(problem, null, false, false);
            this.path = path;
            this.problem = problem;
        }
    }

    private final StreamReadConstraints limits;
    private final List<Frame> frames = new ArrayList<>();
    private boolean rootWritten;

    CheckingGenerator(JsonGenerator target, StreamReadConstraints limits) {
        super(target, false); // copy methods (writeObject, writeTree) come back through the checks
        this.limits = limits;
    }

    /** The JSON path of the value being written now. */
    String path() {
        StringBuilder path = new StringBuilder("$");
        for (Frame f : frames) {
            if (f.index < 0) {
                break;
            }
            if (f.array) {
                path.append('[').append(f.index).append(']');
            } else if (f.dataKeys || f.name == null) {
                path.append(".<key #").append(f.index).append('>');
            } else {
                path.append(JacksonEventSerializer.segment(f.name));
            }
        }
        return path.toString();
    }

    private Refusal refuse(String problem) {
        return new Refusal(path(), problem);
    }

    private void value(String what) {
        if (frames.isEmpty()) {
            if (rootWritten || !what.isEmpty()) {
                throw refuse("must be a JSON object or array, got " + (what.isEmpty() ? "a second value" : what));
            }
            rootWritten = true;
            return;
        }
        Frame top = frames.get(frames.size() - 1);
        if (top.array) {
            top.index++;
        }
    }

    private void open(boolean array, @Nullable Object forValue) {
        value("");
        if (frames.size() + 1 > limits.getMaxNestingDepth()) {
            throw refuse(
                    "is nested deeper than " + limits.getMaxNestingDepth() + " levels, more than a reader accepts");
        }
        boolean dataKeys = !array && (forValue == null || forValue instanceof Map || forValue instanceof JsonNode);
        frames.add(new Frame(array, dataKeys));
    }

    private void end() {
        if (!frames.isEmpty()) {
            frames.remove(frames.size() - 1);
        }
    }

    private void name(String name) {
        if (frames.isEmpty()) {
            throw refuse("must be a JSON object or array");
        }
        Frame top = frames.get(frames.size() - 1);
        top.index++;
        top.name = name;
        text(name, "has a key that ");
        if (name.length() > limits.getMaxNameLength()) {
            throw refuse("has a key of " + name.length() + " characters, more than a reader accepts ("
                    + limits.getMaxNameLength() + ")");
        }
    }

    private void string(String text) {
        value("STRING");
        text(text, "");
        if (text.length() > limits.getMaxStringLength()) {
            throw refuse("is a string of " + text.length() + " characters, more than a reader accepts ("
                    + limits.getMaxStringLength() + ")");
        }
    }

    private void text(String text, String what) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                throw refuse(what + "contains \\u0000 at index " + i + ", which jsonb refuses");
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw refuse(what + "contains an unpaired surrogate at index " + i);
            }
        }
    }

    /** A number as PostgreSQL stores it (numeric) and prints it back (plain notation, every digit). */
    private void decimal(BigDecimal value) {
        value("NUMBER");
        digits(value);
    }

    private void digits(BigDecimal value) {
        int precision = value.precision();
        int scale = value.scale();
        long integerDigits = Math.max(1L, (long) precision - scale);
        long fractionDigits = Math.max(0, scale);
        if (integerDigits > PG_NUMERIC_MAX_INTEGER_DIGITS || fractionDigits > PG_NUMERIC_MAX_FRACTION_DIGITS) {
            throw refuse("is a number beyond PostgreSQL's numeric range (" + PG_NUMERIC_MAX_INTEGER_DIGITS
                    + " digits before the point, " + PG_NUMERIC_MAX_FRACTION_DIGITS + " after)");
        }
        long digits = integerDigits + fractionDigits;
        if (digits > limits.getMaxNumberLength()) {
            throw refuse("is a number of " + digits + " digits as stored, more than a reader accepts ("
                    + limits.getMaxNumberLength() + ")");
        }
    }

    private void floating(double value) {
        value("NUMBER");
        if (Double.isNaN(value)) {
            throw refuse("is NaN, which JSON cannot hold");
        }
        if (Double.isInfinite(value)) {
            throw refuse("is infinite, which JSON cannot hold");
        }
        if (limits.getMaxNumberLength() < LONGEST_DOUBLE_DIGITS) {
            digits(new BigDecimal(Double.toString(value)));
        }
    }

    @Override
    public void writeStartArray() throws IOException {
        open(true, null);
        super.writeStartArray();
    }

    @Override
    @SuppressWarnings("deprecation")
    public void writeStartArray(int size) throws IOException {
        open(true, null);
        super.writeStartArray(size);
    }

    @Override
    public void writeStartArray(@Nullable Object forValue) throws IOException {
        open(true, forValue);
        super.writeStartArray(forValue);
    }

    @Override
    public void writeStartArray(@Nullable Object forValue, int size) throws IOException {
        open(true, forValue);
        super.writeStartArray(forValue, size);
    }

    @Override
    public void writeEndArray() throws IOException {
        end();
        super.writeEndArray();
    }

    @Override
    public void writeStartObject() throws IOException {
        open(false, null);
        super.writeStartObject();
    }

    @Override
    public void writeStartObject(@Nullable Object forValue) throws IOException {
        open(false, forValue);
        super.writeStartObject(forValue);
    }

    @Override
    public void writeStartObject(@Nullable Object forValue, int size) throws IOException {
        open(false, forValue);
        super.writeStartObject(forValue, size);
    }

    @Override
    public void writeEndObject() throws IOException {
        end();
        super.writeEndObject();
    }

    @Override
    public void writeFieldName(String name) throws IOException {
        name(name);
        super.writeFieldName(name);
    }

    @Override
    public void writeFieldName(SerializableString name) throws IOException {
        name(name.getValue());
        super.writeFieldName(name);
    }

    @Override
    public void writeFieldId(long id) throws IOException {
        writeFieldName(Long.toString(id));
    }

    @Override
    public void writeArray(int[] array, int offset, int length) throws IOException {
        writeStartArray(array, length);
        for (int i = offset; i < offset + length; i++) {
            writeNumber(array[i]);
        }
        writeEndArray();
    }

    @Override
    public void writeArray(long[] array, int offset, int length) throws IOException {
        writeStartArray(array, length);
        for (int i = offset; i < offset + length; i++) {
            writeNumber(array[i]);
        }
        writeEndArray();
    }

    @Override
    public void writeArray(double[] array, int offset, int length) throws IOException {
        writeStartArray(array, length);
        for (int i = offset; i < offset + length; i++) {
            writeNumber(array[i]);
        }
        writeEndArray();
    }

    @Override
    public void writeArray(String[] array, int offset, int length) throws IOException {
        writeStartArray(array, length);
        for (int i = offset; i < offset + length; i++) {
            writeString(array[i]);
        }
        writeEndArray();
    }

    @Override
    public void writeString(@Nullable String text) throws IOException {
        if (text == null) {
            writeNull();
            return;
        }
        string(text);
        super.writeString(text);
    }

    @Override
    public void writeString(char[] text, int offset, int len) throws IOException {
        writeString(new String(text, offset, len));
    }

    @Override
    public void writeString(SerializableString text) throws IOException {
        string(text.getValue());
        super.writeString(text);
    }

    @Override
    public void writeString(Reader reader, int len) throws IOException {
        throw refuse("is a stream of text, which cannot be checked before it is stored");
    }

    @Override
    public void writeRawUTF8String(byte[] text, int offset, int length) throws IOException {
        writeString(new String(text, offset, length, StandardCharsets.UTF_8));
    }

    @Override
    public void writeUTF8String(byte[] text, int offset, int length) throws IOException {
        writeString(new String(text, offset, length, StandardCharsets.UTF_8));
    }

    @Override
    public void writeRaw(String text) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRaw(String text, int offset, int len) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRaw(SerializableString raw) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRaw(char[] text, int offset, int len) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRaw(char c) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRawValue(String text) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRawValue(String text, int offset, int len) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeRawValue(char[] text, int offset, int len) throws IOException {
        throw refuse("is raw JSON, which cannot be checked before it is stored");
    }

    @Override
    public void writeBinary(Base64Variant b64variant, byte[] data, int offset, int len) throws IOException {
        throw refuse("has no JSON form (BINARY)");
    }

    @Override
    public int writeBinary(Base64Variant b64variant, InputStream data, int dataLength) throws IOException {
        throw refuse("has no JSON form (BINARY)");
    }

    @Override
    public void writeNumber(short v) throws IOException {
        value("NUMBER");
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(int v) throws IOException {
        value("NUMBER");
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(long v) throws IOException {
        value("NUMBER");
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(@Nullable BigInteger v) throws IOException {
        if (v == null) {
            writeNull();
            return;
        }
        decimal(new BigDecimal(v));
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(double v) throws IOException {
        floating(v);
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(float v) throws IOException {
        floating(v);
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(@Nullable BigDecimal v) throws IOException {
        if (v == null) {
            writeNull();
            return;
        }
        decimal(v);
        super.writeNumber(v);
    }

    @Override
    public void writeNumber(@Nullable String encodedValue) throws IOException {
        if (encodedValue == null) {
            writeNull();
            return;
        }
        BigDecimal parsed;
        try {
            parsed = new BigDecimal(encodedValue);
        } catch (NumberFormatException e) {
            throw refuse("is a number in a form JSON cannot hold");
        }
        decimal(parsed);
        super.writeNumber(encodedValue);
    }

    @Override
    public void writeNumber(char[] encodedValueBuffer, int offset, int len) throws IOException {
        writeNumber(new String(encodedValueBuffer, offset, len));
    }

    @Override
    public void writeBoolean(boolean state) throws IOException {
        value("BOOLEAN");
        super.writeBoolean(state);
    }

    @Override
    public void writeNull() throws IOException {
        value("NULL");
        wroteNull = true;
        super.writeNull();
    }

    /** Whether a {@code null} was written anywhere: only then can the reading side refuse one. */
    boolean wroteNull() {
        return wroteNull;
    }

    @Override
    public void writeEmbeddedObject(@Nullable Object object) throws IOException {
        throw refuse("has no JSON form (POJO)");
    }

    @Override
    public void writeTree(@Nullable TreeNode tree) throws IOException {
        if (tree == null) {
            writeNull();
            return;
        }
        getCodec().writeTree(this, tree);
    }
}
