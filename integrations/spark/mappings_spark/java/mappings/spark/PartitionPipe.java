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
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskContext$;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One partition's records through one `mappings stream --spark-frames` process, in the JVM:
 * the records' bytes go to the process as they are (no Python, no Java string in between),
 * and each frame it writes back becomes a row without parsing JSON, since a mapped record's
 * frame holds its Spark row (docs/scale-out.md).
 *
 * Input rows: the record's JSON text (a string, null for a null record) and, when columns are
 * carried, a struct of them. Output rows, one per record and one for the stats:
 * {@code tag INT, line BIGINT, record STRUCT (the context's), text STRING, carry STRUCT}, where
 * tag is {@link #MAPPED} (record set), {@link #REJECTED} (text: the reject's JSON) or
 * {@link #STATS} (text: the stats' JSON; line: the blank records rejected here, which the
 * stream never saw). {@code line} is the record's place in its partition, from 1. A record the
 * context's filter dropped has no row.
 */
public final class PartitionPipe implements FlatMapFunction<Iterator<InternalRow>, InternalRow>, Serializable {
    private static final long serialVersionUID = 1L;

    public static final int MAPPED = 0;
    public static final int REJECTED = 1;
    public static final int STATS = 2;

    /** The prefix of an argument that names a shipped file (`SparkFiles.get`). */
    private static final String SHIPPED = "spark-files:";

    /** The stderr kept for a failure's message. */
    private static final int STDERR_KEPT = 16 * 1024;

    private final String[] command;
    private final int recordFields;
    private final int carryFields;
    private final int bufferBytes;

    /**
     * @param command the process to run: the tool and its arguments ({@code stream ... --spark-frames}).
     *     An argument {@code spark-files:NAME} is the path of the file Spark shipped as NAME.
     * @param recordFields the fields of the context's Spark schema.
     * @param carryFields the fields of the carried struct (0: nothing carried).
     */
    public PartitionPipe(List<String> command, int recordFields, int carryFields, int bufferBytes) {
        this.command = command.toArray(new String[0]);
        this.recordFields = recordFields;
        this.carryFields = carryFields;
        this.bufferBytes = bufferBytes;
    }

    /** The tagged rows of every partition of {@code input} (Python's entry point). */
    public static JavaRDD<InternalRow> run(JavaRDD<InternalRow> input, List<String> command, int recordFields,
            int carryFields) {
        return input.mapPartitions(new PartitionPipe(command, recordFields, carryFields, 1 << 20), true);
    }

    /** The mapped records of tagged rows: the record's fields, then the carried ones. */
    public static JavaRDD<InternalRow> records(JavaRDD<InternalRow> tagged, int recordFields, int carryFields) {
        return tagged.filter(row -> row.getInt(0) == MAPPED).map(row -> {
            InternalRow record = row.getStruct(2, recordFields);
            if (carryFields == 0) {
                return record;
            }
            return new JoinedRow(record, row.getStruct(4, carryFields));
        });
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> input) throws Exception {
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
        final Object carry;
        /** The text of a blank record, which is rejected here (a stream skips a blank line). */
        final byte[] blank;

        Given(long line, Object carry, byte[] blank) {
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
            try (OutputStream out = new BufferedOutputStream(stdin, bufferBytes)) {
                while (input.hasNext()) {
                    InternalRow row = input.next();
                    line += 1;
                    Object carry = carryFields == 0 || row.isNullAt(1) ? null : row.getStruct(1, carryFields).copy();
                    if (row.isNullAt(0)) {
                        // A null record is the JSON null, mapped (or rejected) like any other.
                        given.add(new Given(line, carry, null));
                        out.write(nullRecord);
                        out.write('\n');
                        continue;
                    }
                    byte[] bytes = row.getUTF8String(0).getBytes();
                    boolean blank = true;
                    boolean breaks = false;
                    for (byte b : bytes) {
                        if (b == '\n' || b == '\r') {
                            breaks = true;
                        } else if (b != ' ' && b != '\t') {
                            blank = false;
                        }
                    }
                    if (blank) {
                        given.add(new Given(line, carry, bytes));
                        continue;
                    }
                    given.add(new Given(line, carry, null));
                    if (breaks) {
                        // JSON allows line breaks only between tokens: spaces there.
                        for (int index = 0; index < bytes.length; index++) {
                            if (bytes[index] == '\n' || bytes[index] == '\r') {
                                bytes[index] = ' ';
                            }
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

    /** The rows of the frames the process writes. */
    private final class Frames implements Iterator<InternalRow> {
        private final Process process;
        private final Feeder feeder;
        private final ErrorReader errors;
        private final ConcurrentLinkedQueue<Given> given;
        private final int partition;
        private final DataInputStream frames;
        /** Rows made and not yet taken: a frame's, after those of blank records before it. */
        private final ArrayDeque<InternalRow> ready = new ArrayDeque<>();
        /** The blank records rejected here, which the stream's stats do not count. */
        private long rejectedHere;
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
            while (ready.isEmpty() && !ended) {
                read();
            }
            return !ready.isEmpty();
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return ready.poll();
        }

        /** Reads one frame, making its row (and those of the blank records before it). */
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
                byte[] payload = new byte[length];
                frames.readFully(payload);
                if (frames.readUnsignedByte() != '\n') {
                    throw failure("wrote a frame that does not end with a line feed", null);
                }
                switch (kind) {
                    case 'm': {
                        Given record = nextGiven();
                        UnsafeRow row = new UnsafeRow(recordFields);
                        row.pointTo(payload, length);
                        ready.add(row(MAPPED, record.line, row, null, record.carry));
                        break;
                    }
                    case 'r': {
                        Given record = nextGiven();
                        ready.add(row(REJECTED, record.line, null, UTF8String.fromBytes(payload), record.carry));
                        break;
                    }
                    case 'f':
                        nextGiven();
                        break;
                    case 's':
                        Given left;
                        while ((left = given.poll()) != null) {
                            if (left.blank == null) {
                                throw failure("gave no frame for record " + left.line, null);
                            }
                            rejectBlank(left);
                        }
                        ready.add(row(STATS, rejectedHere, null, UTF8String.fromBytes(payload), null));
                        break;
                    default:
                        throw failure("wrote a frame of an unknown kind (" + kind + ")", null);
                }
            } catch (IOException error) {
                throw failure("could not be read", error);
            }
        }

        /** The record the next frame is about, after rejecting the blank ones before it. */
        private Given nextGiven() {
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

        private void rejectBlank(Given record) {
            rejectedHere += 1;
            StringBuilder input = new StringBuilder();
            for (byte b : record.blank) {
                input.append(b == '\t' ? "\\t" : b == '\n' ? "\\n" : b == '\r' ? "\\r" : " ");
            }
            String reject = "{\"line\":" + record.line + ",\"input\":\"" + input
                    + "\",\"issues\":[{\"kind\":\"invalid JSON\",\"message\":\"the record is empty\"}]}";
            ready.add(row(REJECTED, record.line, null, UTF8String.fromString(reject), record.carry));
        }

        private InternalRow row(int tag, long line, Object record, Object text, Object carry) {
            return new GenericInternalRow(new Object[] {tag, line, record, text, carry});
        }

        /** At the end of the frames: the process must have read everything and ended well. */
        private void finish() {
            ended = true;
            try {
                feeder.join();
                int status = process.waitFor();
                errors.join(5_000);
                if (feeder.failure != null) {
                    throw failure("could not be given its records", feeder.failure);
                }
                if (status != 0 && status != 1) {
                    throw failure("exited with status " + status, null);
                }
                if (!given.isEmpty()) {
                    throw failure("ended without the frames of " + given.size() + " records", null);
                }
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
