package dev.outbox.delivery.internal;

import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;

/** The scan lines of a statement's plan, for the tests that pin which index a statement reads. */
final class PlanScans {

    private PlanScans() {}

    /** The scans of the plan of {@code statement} for {@code values}, one per line (the values it shows are left out). */
    static String of(DSLContext ctx, RenderedStatement statement, Object... values) {
        List<String> scans = statement
                .explain()
                .query(
                        ctx,
                        rs -> {
                            List<String> read = new ArrayList<>();
                            while (rs.next()) {
                                String line = rs.getString(1);
                                if (line.contains("Scan")) {
                                    read.add(line.strip());
                                }
                            }
                            return read;
                        },
                        values);
        return String.join("\n", scans);
    }
}
