package mappings.spark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.spark.Partition;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskContext$;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.util.TaskCompletionListener;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.storage.RDDBlockId;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One partition's records through one `mappings stream --spark-frames` process, in the JVM:
 * the records' bytes go to the process as they are (no Python, no Java string in between),
 * and each frame it writes back is kept as it came, since a mapped record's frame holds its
 * Spark row: Spark parses no JSON (docs/scale-out.md).
 *
 * <p>Input rows: the record's JSON text (a string, null for a null record) and, when columns
 * are carried, a struct of them. A partition's output is a few large chunks (about a MiB
 * each, cheap to cache), each a run of entries in input order, one per record the context did
 * not filter out and one for the stats, each entry:
 * {@code tag (int), record size (int), line (long), carry size (int), text size (int)}, then
 * the record's row, the carried columns' row and the text, each padded to 8 bytes. The tag is
 * {@link #MAPPED} (a record's row), {@link #REJECTED} (text: the reject's JSON) or
 * {@link #STATS} (text: the stats' JSON; line: the blank records rejected here, which the
 * stream never saw). {@code line} is the record's place in its partition, from 1.
 * {@link #records} and {@link #others} read the chunks back as rows.
 */
public final class PartitionPipe implements FlatMapFunction<Iterator<InternalRow>, byte[]>, Serializable {
    private static final long serialVersionUID = 2L;

    public static final int MAPPED = 0;
    public static final int REJECTED = 1;
    public static final int STATS = 2;

    /** The prefix of an argument that names a shipped file (`SparkFiles.get`). */
    private static final String SHIPPED = "spark-files:";

    /** The stderr kept for a failure's message. */
    private static final int STDERR_KEPT = 16 * 1024;

    /**
     * The size a chunk is cut at: under half of G1's smallest region (1 MiB), so that a chunk is
     * an ordinary young object, not a "humongous" one allocated in the old generation.
     */
    private static final int CHUNK = 256 << 10;

    private static final int HEADER = 24;

    private final String[] command;
    private final String carryType;
    private final int bufferBytes;

    /**
     * @param command the process to run: the tool and its arguments ({@code stream ... --spark-frames}).
     *     An argument {@code spark-files:NAME} is the path of the file Spark shipped as NAME.
     * @param carryType the carried struct's type as JSON, or null when nothing is carried.
     */
    public PartitionPipe(List<String> command, String carryType, int bufferBytes) {
        this.command = command.toArray(new String[0]);
        this.carryType = carryType;
        this.bufferBytes = bufferBytes;
    }

    /** The id of the {@link Others} of this run, whose blocks a task puts its rejects and stats in. */
    private int othersId = -1;

    /**
     * The chunks of every partition of {@code input}, and their {@link Others} (Python's entry
     * point).
     */
    public static List<JavaRDD<byte[]>> run(JavaRDD<InternalRow> input, List<String> command, String carryType) {
        PartitionPipe pipe = new PartitionPipe(command, carryType, 256 << 10);
        JavaRDD<byte[]> chunks = input.mapPartitions(pipe, true);
        Others others = new Others(chunks.rdd());
        // Read when the tasks are made, after this.
        pipe.othersId = others.id();
        return List.of(chunks, others.toJavaRDD());
    }

    private static final ClassTag<byte[]> CHUNK_TAG = ClassTag$.MODULE$.apply(byte[].class);

    /**
     * The rejects and the stats of each partition of a run: the chunk its task put aside as a
     * block of this RDD (so that reading them does not read the records again), or, when that
     * block is gone (evicted, or a task that ran elsewhere is not reachable), the run's own
     * chunks, whose other entries {@link #others} skips.
     */
    public static final class Others extends RDD<byte[]> {
        private static final long serialVersionUID = 1L;

        private final RDD<byte[]> chunks;

        Others(RDD<byte[]> chunks) {
            super(chunks, CHUNK_TAG);
            this.chunks = chunks;
        }

        @Override
        public scala.collection.Iterator<byte[]> compute(Partition split, TaskContext context) {
            Option<byte[]> kept = SparkEnv.get().blockManager().getSingle(new RDDBlockId(id(), split.index()), CHUNK_TAG);
            if (kept.isDefined()) {
                return CollectionConverters.asScala(List.of(kept.get()).iterator());
            }
            return chunks.iterator(split, context);
        }

        @Override
        public Partition[] getPartitions() {
            return chunks.partitions();
        }
    }

    /**
     * The mapped records of chunks: each record's row (pointing into its chunk, not copied), then
     * the carried columns, for a DataFrame of the context's schema and the carried ones.
     */
    public static JavaRDD<InternalRow> records(JavaRDD<byte[]> chunks, int recordFields, int carryFields) {
        return chunks.mapPartitions(chunked -> new Entries(chunked, true, recordFields, carryFields), true);
    }

    /**
     * The rejects and the stats of chunks, as rows {@code tag INT, line BIGINT, text STRING,
     * carry STRUCT}.
     */
    public static JavaRDD<InternalRow> others(JavaRDD<byte[]> chunks, int carryFields) {
        return chunks.mapPartitions(chunked -> new Entries(chunked, false, 0, carryFields), true);
    }

    /** The entries of chunks, as rows: the records', or the others'. */
    private static final class Entries implements Iterator<InternalRow> {
        private final Iterator<byte[]> chunks;
        private final boolean records;
        private final int recordFields;
        private final int carryFields;
        private byte[] chunk;
        private int position;
        private InternalRow next;

        Entries(Iterator<byte[]> chunks, boolean records, int recordFields, int carryFields) {
            this.chunks = chunks;
            this.records = records;
            this.recordFields = recordFields;
            this.carryFields = carryFields;
        }

        @Override
        public boolean hasNext() {
            while (next == null) {
                if (chunk == null || position >= chunk.length) {
                    if (!chunks.hasNext()) {
                        return false;
                    }
                    chunk = chunks.next();
                    position = 0;
                    continue;
                }
                long at = Platform.BYTE_ARRAY_OFFSET + position;
                int tag = Platform.getInt(chunk, at);
                int recordSize = Platform.getInt(chunk, at + 4);
                long line = Platform.getLong(chunk, at + 8);
                int carrySize = Platform.getInt(chunk, at + 16);
                int textSize = Platform.getInt(chunk, at + 20);
                int record = position + HEADER;
                int carried = record + padded(recordSize);
                int text = carried + padded(carrySize);
                position = text + padded(textSize);
                if ((tag == MAPPED) != records) {
                    continue;
                }
                UnsafeRow carry = null;
                if (carrySize > 0) {
                    carry = new UnsafeRow(carryFields);
                    carry.pointTo(chunk, Platform.BYTE_ARRAY_OFFSET + carried, carrySize);
                }
                if (records) {
                    UnsafeRow row = new UnsafeRow(recordFields);
                    row.pointTo(chunk, Platform.BYTE_ARRAY_OFFSET + record, recordSize);
                    next = carryFields == 0 ? row : new JoinedRow(row, carry == null ? nullCarry() : carry);
                } else {
                    UTF8String value = UTF8String.fromAddress(chunk, Platform.BYTE_ARRAY_OFFSET + text, textSize);
                    next = new GenericInternalRow(new Object[] {tag, line, value, carry});
                }
            }
            return true;
        }

        private InternalRow nullCarry() {
            GenericInternalRow nothing = new GenericInternalRow(carryFields);
            for (int index = 0; index < carryFields; index++) {
                nothing.setNullAt(index);
            }
            return nothing;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            InternalRow row = next;
            next = null;
            return row;
        }
    }

    static int padded(int size) {
        return (size + 7) & ~7;
    }

    @Override
    public Iterator<byte[]> call(Iterator<InternalRow> input) throws Exception {
        TaskContext context = TaskContext.get();
        int partition = context == null ? -1 : context.partitionId();
        String[] resolved = command.clone();
        for (int index = 0; index < resolved.length; index++) {
            if (resolved[index].startsWith(SHIPPED)) {
                // Where Spark put a file `SparkContext.addFile` shipped, on this node.
                resolved[index] = SparkFiles.get(resolved[index].substring(SHIPPED.length()));
            }
        }
        File tool = new File(resolved[0]);
        if (tool.isFile() && !tool.canExecute()) {
            // A shipped file may have lost its mode; the worker beside it too.
            tool.setExecutable(true);
            File worker = new File(tool.getParentFile(), "mappings-lua-worker");
            if (worker.isFile()) {
                worker.setExecutable(true);
            }
        }
        Process process = new ProcessBuilder(resolved).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        ConcurrentLinkedQueue<Given> given = new ConcurrentLinkedQueue<>();
        ErrorReader errors = new ErrorReader(process.getErrorStream(), partition);
        errors.start();
        Feeder feeder = new Feeder(input, process.getOutputStream(), given, context);
        feeder.start();
        Frames frames = new Frames(process, feeder, errors, given, partition);
        if (context != null) {
            context.addTaskCompletionListener((TaskCompletionListener) done -> frames.close());
        }
        return frames;
    }

    /** A record given to the process (or, when blank, kept back), in input order. */
    private static final class Given {
        final long line;
        /** The carried columns' row, as bytes (none when nothing is carried). */
        final byte[] carry;
        /** The text of a blank record, which is rejected here (a stream skips a blank line). */
        final byte[] blank;

        Given(long line, byte[] carry, byte[] blank) {
            this.line = line;
            this.carry = carry;
            this.blank = blank;
        }
    }

    /** Writes each record's bytes and a line feed to the process, on its own thread. */
    private final class Feeder extends Thread {
        private final Iterator<InternalRow> input;
        private final OutputStream stdin;
        private final ConcurrentLinkedQueue<Given> given;
        private final TaskContext context;
        volatile Throwable failure;

        Feeder(Iterator<InternalRow> input, OutputStream stdin, ConcurrentLinkedQueue<Given> given,
                TaskContext context) {
            super("mappings stdin writer");
            setDaemon(true);
            this.input = input;
            this.stdin = stdin;
            this.given = given;
            this.context = context;
        }

        @Override
        public void run() {
            if (context != null) {
                // As Spark's own pipe does: what the input's iterator asks of its task is there.
                TaskContext$.MODULE$.setTaskContext(context);
            }
            byte[] nullRecord = "null".getBytes(StandardCharsets.US_ASCII);
            long line = 0;
            // The carried columns as an UnsafeRow of their own (their bytes are kept with the record's).
            StructType carryStruct = carryType == null ? null : (StructType) DataType.fromJson(carryType);
            int carryFields = carryStruct == null ? 0 : carryStruct.size();
            UnsafeProjection carried = carryStruct == null ? null : UnsafeProjection.create(carryStruct);
            try (OutputStream out = new BufferedOutputStream(stdin, bufferBytes)) {
                while (input.hasNext()) {
                    InternalRow row = input.next();
                    line += 1;
                    byte[] carry = carried == null ? null : carried.apply(row.getStruct(1, carryFields)).getBytes();
                    if (row.isNullAt(0)) {
                        // A null record is the JSON null, mapped (or rejected) like any other.
                        given.add(new Given(line, carry, null));
                        out.write(nullRecord);
                        out.write('\n');
                        continue;
                    }
                    UTF8String text = row.getUTF8String(0);
                    Object base = text.getBaseObject();
                    long offset = text.getBaseOffset();
                    int length = text.numBytes();
                    boolean blank = isBlank(base, offset, length);
                    boolean breaks = !blank && hasLineBreak(base, offset, length);
                    if (blank) {
                        given.add(new Given(line, carry, text.getBytes()));
                        continue;
                    }
                    given.add(new Given(line, carry, null));
                    if (!breaks) {
                        // The bytes where they are, without a copy.
                        text.writeTo(out);
                        out.write('\n');
                        continue;
                    }
                    // JSON allows line breaks only between tokens: spaces there.
                    byte[] bytes = text.getBytes();
                    for (int index = 0; index < bytes.length; index++) {
                        if (bytes[index] == '\n' || bytes[index] == '\r') {
                            bytes[index] = ' ';
                        }
                    }
                    out.write(bytes);
                    out.write('\n');
                }
            } catch (Throwable error) {
                failure = error;
            }
        }
    }

    /** Whether the bytes are spaces and tabs only (nearly always false at the first byte). */
    static boolean isBlank(Object base, long offset, int length) {
        for (int index = 0; index < length; index++) {
            byte b = Platform.getByte(base, offset + index);
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /** Whether the bytes hold a line feed or a carriage return: eight bytes a step. */
    static boolean hasLineBreak(Object base, long offset, int length) {
        int index = 0;
        for (; index + 8 <= length; index += 8) {
            long word = Platform.getLong(base, offset + index);
            long feeds = word ^ (ONES * '\n');
            long returns = word ^ (ONES * '\r');
            // A zero byte in either: a byte that was a line feed or a carriage return.
            if (hasZeroByte(feeds, returns)) {
                return true;
            }
        }
        for (; index < length; index++) {
            byte b = Platform.getByte(base, offset + index);
            if (b == '\n' || b == '\r') {
                return true;
            }
        }
        return false;
    }

    /** Whether either word has a zero byte (exact: `(x - 0x01…) & ~x & 0x80…` is not zero). */
    private static boolean hasZeroByte(long first, long second) {
        return (((first - ONES) & ~first & HIGHS) | ((second - ONES) & ~second & HIGHS)) != 0;
    }

    /** Keeps the first bytes of the process's stderr and passes its lines on to the task's. */
    private static final class ErrorReader extends Thread {
        private final InputStream stderr;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

        ErrorReader(InputStream stderr, int partition) {
            super("mappings stderr reader (partition " + partition + ")");
            setDaemon(true);
            this.stderr = stderr;
        }

        @Override
        public void run() {
            byte[] buffer = new byte[8192];
            try {
                int count;
                while ((count = stderr.read(buffer)) > 0) {
                    synchronized (kept) {
                        if (kept.size() < STDERR_KEPT) {
                            kept.write(buffer, 0, Math.min(count, STDERR_KEPT - kept.size()));
                        }
                    }
                    System.err.write(buffer, 0, count);
                }
            } catch (IOException ignored) {
                // The process is gone: what it wrote is kept.
            }
        }

        String text() {
            synchronized (kept) {
                return kept.toString(StandardCharsets.UTF_8);
            }
        }
    }

    /** The chunks of the frames the process writes. */
    private final class Frames implements Iterator<byte[]> {
        private final Process process;
        private final Feeder feeder;
        private final ErrorReader errors;
        private final ConcurrentLinkedQueue<Given> given;
        private final int partition;
        private final DataInputStream frames;
        /** The chunk being filled, and how much of it is. */
        private byte[] chunk = new byte[CHUNK + (CHUNK >> 2)];
        private int filled;
        private byte[] ready;
        /** The blank records rejected here, which the stream's stats do not count. */
        private long rejectedHere;
        /** The rejects and the stats, put aside at the end (`Others`). */
        private final java.io.ByteArrayOutputStream others = new java.io.ByteArrayOutputStream();
        private boolean ended;

        Frames(Process process, Feeder feeder, ErrorReader errors, ConcurrentLinkedQueue<Given> given,
                int partition) {
            this.process = process;
            this.feeder = feeder;
            this.errors = errors;
            this.given = given;
            this.partition = partition;
            this.frames = new DataInputStream(new BufferedInputStream(process.getInputStream(), bufferBytes));
        }

        @Override
        public boolean hasNext() {
            while (ready == null && !ended) {
                read();
                if (filled >= CHUNK || (ended && filled > 0)) {
                    ready = Arrays.copyOf(chunk, filled);
                    filled = 0;
                }
            }
            return ready != null;
        }

        @Override
        public byte[] next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            byte[] taken = ready;
            ready = null;
            return taken;
        }

        /** Reads one frame into the chunk (after the entries of the blank records before it). */
        private void read() {
            try {
                int length;
                try {
                    length = frames.readInt();
                } catch (EOFException end) {
                    finish();
                    return;
                }
                int kind = frames.readUnsignedByte();
                switch (kind) {
                    case 'm': {
                        Given record = nextGiven();
                        entry(MAPPED, record.line, length, record.carry, null);
                        break;
                    }
                    case 'r': {
                        Given record = nextGiven();
                        entry(REJECTED, record.line, 0, record.carry, length);
                        break;
                    }
                    case 'f':
                        nextGiven();
                        frames.skipNBytes(length);
                        break;
                    case 's':
                        Given left;
                        while ((left = given.poll()) != null) {
                            if (left.blank == null) {
                                throw failure("gave no frame for record " + left.line, null);
                            }
                            rejectBlank(left);
                        }
                        byte[] stats = new byte[length];
                        frames.readFully(stats);
                        entry(STATS, rejectedHere, 0, null, stats);
                        break;
                    default:
                        throw failure("wrote a frame of an unknown kind (" + kind + ")", null);
                }
                if (frames.readUnsignedByte() != '\n') {
                    throw failure("wrote a frame that does not end with a line feed", null);
                }
            } catch (IOException error) {
                throw failure("could not be read", error);
            }
        }

        /**
         * Puts the partition's rejects and stats aside as a block of `Others`, once the process
         * has read every record and ended well (a task that fails puts nothing, so a retry's
         * block is the only one).
         */
        private void putAside() {
            TaskContext context = TaskContext.get();
            if (othersId < 0 || context == null) {
                return;
            }
            SparkEnv.get().blockManager().putSingle(new RDDBlockId(othersId, context.partitionId()),
                    others.toByteArray(), StorageLevel.MEMORY_AND_DISK(), true, CHUNK_TAG);
        }

        /** Makes room for `size` more bytes in the chunk. */
        private void room(int size) {
            if (filled + size > chunk.length) {
                chunk = Arrays.copyOf(chunk, Math.max(chunk.length * 2, filled + size));
            }
        }

        /**
         * Appends an entry; a record's row (`recordSize` bytes) or a reject's text (`textSize`)
         * is read from the frames straight into the chunk.
         */
        private void entry(int tag, long line, int recordSize, byte[] carry, Object text) throws IOException {
            int carrySize = carry == null ? 0 : carry.length;
            int textSize = text == null ? 0 : text instanceof byte[] ? ((byte[]) text).length : (Integer) text;
            room(HEADER + padded(recordSize) + padded(carrySize) + padded(textSize));
            long at = Platform.BYTE_ARRAY_OFFSET + filled;
            Platform.putInt(chunk, at, tag);
            Platform.putInt(chunk, at + 4, recordSize);
            Platform.putLong(chunk, at + 8, line);
            Platform.putInt(chunk, at + 16, carrySize);
            Platform.putInt(chunk, at + 20, textSize);
            int position = filled + HEADER;
            if (recordSize > 0) {
                frames.readFully(chunk, position, recordSize);
            }
            position += padded(recordSize);
            if (carrySize > 0) {
                System.arraycopy(carry, 0, chunk, position, carrySize);
            }
            position += padded(carrySize);
            if (text instanceof byte[]) {
                System.arraycopy((byte[]) text, 0, chunk, position, textSize);
            } else if (textSize > 0) {
                frames.readFully(chunk, position, textSize);
            }
            position += padded(textSize);
            // Padding is zeros (a chunk may be reused space of a larger one).
            Arrays.fill(chunk, filled + HEADER + recordSize, filled + HEADER + padded(recordSize), (byte) 0);
            if (tag != MAPPED) {
                others.write(chunk, filled, position - filled);
            }
            filled = position;
        }

        /** The record the next frame is about, after rejecting the blank ones before it. */
        private Given nextGiven() throws IOException {
            while (true) {
                Given record = given.poll();
                if (record == null) {
                    throw failure("wrote a frame for a record it was not given", null);
                }
                if (record.blank == null) {
                    return record;
                }
                rejectBlank(record);
            }
        }

        private void rejectBlank(Given record) throws IOException {
            rejectedHere += 1;
            StringBuilder input = new StringBuilder();
            for (byte b : record.blank) {
                input.append(b == '\t' ? "\\t" : b == '\n' ? "\\n" : b == '\r' ? "\\r" : " ");
            }
            String reject = "{\"line\":" + record.line + ",\"input\":\"" + input
                    + "\",\"issues\":[{\"kind\":\"invalid JSON\",\"message\":\"the record is empty\"}]}";
            entry(REJECTED, record.line, 0, record.carry, reject.getBytes(StandardCharsets.UTF_8));
        }

        /** At the end of the frames: the process must have read everything and ended well. */
        private void finish() {
            ended = true;
            try {
                int status = process.waitFor();
                feeder.join();
                errors.join(5_000);
                // The process's own failure first: a feeder that could not write to a process
                // that had exited (a broken pipe) only follows from it.
                if (status != 0 && status != 1) {
                    throw failure("exited with status " + status, feeder.failure);
                }
                if (feeder.failure != null) {
                    throw failure("could not be given its records", feeder.failure);
                }
                if (!given.isEmpty()) {
                    throw failure("ended without the frames of " + given.size() + " records", null);
                }
                putAside();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw failure("was interrupted", interrupted);
            }
        }

        private RuntimeException failure(String what, Throwable cause) {
            String message = "mappings stream in partition " + partition + " " + what;
            close();
            try {
                errors.join(2_000);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            String stderr = errors.text().trim();
            if (!stderr.isEmpty()) {
                message += ":\n" + stderr;
            }
            return new IllegalStateException(message, cause);
        }

        /** Stops the process (a task that ends early, as `limit` does, or fails). */
        void close() {
            ended = true;
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }
}
