package dev.outbox.bench;

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

    static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
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
