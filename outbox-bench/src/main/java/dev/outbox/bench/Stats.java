package dev.outbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Percentiles of a sample and the median / min / max of repeated runs. */
final class Stats {

    private Stats() {}

    static double percentile(long[] sortedValues, double p) {
        if (sortedValues.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sortedValues.length) - 1;
        return sortedValues[Math.max(0, Math.min(sortedValues.length - 1, index))];
    }

    /** "p50 … p99 … max … ms" of sorted values, {@code perMilli} of them a millisecond (1,000 for µs, 1e6 for ns). */
    static String tail(long[] sortedValues, double perMilli) {
        return String.format(
                "p50 %.1f p99 %.1f max %.1f ms",
                percentile(sortedValues, 50) / perMilli,
                percentile(sortedValues, 99) / perMilli,
                sortedValues[sortedValues.length - 1] / perMilli);
    }

    static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }

    /** {@code values} in slices of {@code size} (the last may be shorter), in their order, each slice sorted. */
    static List<long[]> sortedSlices(long[] values, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("slices of " + size + " values");
        }
        List<long[]> slices = new ArrayList<>();
        for (int from = 0; from < values.length; from += size) {
            long[] slice = Arrays.copyOfRange(values, from, Math.min(values.length, from + size));
            Arrays.sort(slice);
            slices.add(slice);
        }
        return slices;
    }

    static double median(List<Double> runs) {
        double[] v = runs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** "median (min–max)" of runs, formatted with {@code decimals}. */
    static String summary(List<Double> runs, int decimals) {
        if (runs.isEmpty()) {
            return "-";
        }
        double[] v = runs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = median(runs);
        String f = "%." + decimals + "f";
        if (v.length == 1) {
            return String.format(f, median);
        }
        return String.format(f + " (" + f + "–" + f + ")", median, v[0], v[v.length - 1]);
    }
}
