package dev.outbox.schema.mapping;

import dev.outbox.flyway.OutboxTables;
import java.util.ArrayList;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.MappedTable;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;

/**
 * jOOQ settings that send every query over the generated tables (generated from
 * {@code public.outbox_events}, {@code public.outbox_deliveries}, {@code public.outbox_inbox}) to the
 * schema and table names of an {@link OutboxTables}. The enum types follow the schema.
 *
 * <pre>{@code
 * DSLContext ctx = DSL.using(dataSource, SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));
 * }</pre>
 */
public final class OutboxRenderMapping {

    /** The schema the code was generated from. */
    static final String GENERATED_SCHEMA = "public";

    private OutboxRenderMapping() {}

    /** New settings with only the render mapping of {@code tables}. */
    public static Settings settings(OutboxTables tables) {
        return apply(new Settings(), tables);
    }

    /**
     * Adds the render mapping of {@code tables} to a copy of {@code settings}; other schemas an
     * application maps in {@code settings} are kept.
     */
    public static Settings apply(Settings settings, OutboxTables tables) {
        Settings copy = (Settings) settings.clone();
        // a new RenderMapping with new lists: Settings.clone() shares them with the caller's settings,
        // which must never change (and may be read by other threads at the same time)
        RenderMapping original = settings.getRenderMapping();
        RenderMapping mapping = new RenderMapping();
        if (original != null) {
            mapping.setDefaultCatalog(original.getDefaultCatalog());
            mapping.setDefaultSchema(original.getDefaultSchema());
            mapping.setCatalogs(new ArrayList<>(original.getCatalogs()));
            for (MappedSchema schema : original.getSchemata()) {
                if (!GENERATED_SCHEMA.equals(schema.getInput())) {
                    mapping.getSchemata().add(schema);
                }
            }
        }
        mapping.getSchemata()
                .add(new MappedSchema()
                        .withInput(GENERATED_SCHEMA)
                        .withOutput(tables.schema())
                        .withTables(
                                new MappedTable()
                                        .withInput(OutboxTables.DEFAULT_EVENTS)
                                        .withOutput(tables.events()),
                                new MappedTable()
                                        .withInput(OutboxTables.DEFAULT_EVENTS + OutboxTables.KEYS_SUFFIX)
                                        .withOutput(tables.keys()),
                                new MappedTable()
                                        .withInput(OutboxTables.DEFAULT_DELIVERIES)
                                        .withOutput(tables.deliveries()),
                                new MappedTable()
                                        .withInput(OutboxTables.DEFAULT_INBOX)
                                        .withOutput(tables.inbox())));
        return copy.withRenderMapping(mapping).withRenderSchema(true);
    }
}
