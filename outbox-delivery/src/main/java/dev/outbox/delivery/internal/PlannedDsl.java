package dev.outbox.delivery.internal;

import dev.outbox.api.OutboxDsl;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import org.jooq.Configuration;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.Query;
import org.jooq.impl.DSL;
import org.jooq.util.postgres.PostgresUtils;
import org.postgresql.PGStatement;

/** The relay's and worker's contexts for their hot statements. */
public final class PlannedDsl {

    /** The key of {@link Configuration#data()} under which a planned configuration keeps its tables. */
    private static final String PLANNED = PlannedDsl.class.getName() + ".planned";

    private static final ExecuteListener ONE_SHOT = new OneShotStatements();

    private PlannedDsl() {}

    /**
     * Like {@link OutboxDsl#mapped}, for the hot queries of relay and worker: values are sent as bind
     * parameters, but no statement of this context becomes a server-side prepared statement (pgjdbc's
     * prepare threshold is 0), so PostgreSQL plans each execution for the tables as they are. A
     * generic plan made while the tables were empty would otherwise be kept as they grow
     * (docs/BENCHMARKS.md, "The planner trap"). Works on any pgjdbc connection.
     *
     * <p>A context already planned for the same tables is returned as it is.
     */
    public static DSLContext planned(DSLContext ctx, OutboxTables tables) {
        if (tables.equals(ctx.configuration().data(PLANNED))) {
            return ctx;
        }
        Configuration configuration = ctx.configuration()
                .derive(OutboxRenderMapping.apply(ctx.settings(), tables))
                .deriveAppending(ONE_SHOT);
        configuration.data(PLANNED, tables);
        return DSL.using(configuration);
    }

    /**
     * Sets pgjdbc's prepare threshold of every statement to 0, and sends array values untyped so that
     * PostgreSQL takes the type of the {@code cast(? as uuid[])} around them: as {@code varchar}
     * the cast would be evaluated again for every row compared, a typed parameter is converted once.
     */
    private static final class OneShotStatements implements ExecuteListener {

        private static final long serialVersionUID = 1L;

        @Override
        public void bindEnd(ExecuteContext ctx) {
            String sql = ctx.sql();
            Query query = ctx.query();
            PreparedStatement statement = ctx.statement();
            if (sql == null || query == null || statement == null || !sql.contains("[])")) {
                return;
            }
            List<Object> values = query.getBindValues();
            try {
                // the driver's own statement: jOOQ's wrapper keeps the string type of its own binding
                PreparedStatement target = statement.unwrap(PreparedStatement.class);
                for (int i = 0; i < values.size(); i++) {
                    if (values.get(i) instanceof Object[] array) {
                        target.setObject(i + 1, PostgresUtils.toPGArrayString(array), Types.OTHER);
                    }
                }
            } catch (SQLException e) {
                throw new org.jooq.exception.DataAccessException("cannot bind an array", e);
            }
        }

        @Override
        public void prepareEnd(ExecuteContext ctx) {
            Statement statement = ctx.statement();
            if (statement == null) {
                return;
            }
            try {
                if (statement.isWrapperFor(PGStatement.class)) {
                    statement.unwrap(PGStatement.class).setPrepareThreshold(0);
                }
            } catch (SQLException e) {
                throw new org.jooq.exception.DataAccessException("cannot set the prepare threshold of a statement", e);
            }
        }
    }
}
