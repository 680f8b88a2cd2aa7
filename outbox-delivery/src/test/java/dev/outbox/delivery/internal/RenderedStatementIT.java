package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.testing.PostgresSchemaExtension;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Param;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A query rendered once and run with new values: the values reach their places, and nothing is prepared on the server. */
class RenderedStatementIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    private final DSLContext app = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    private final DSLContext planned = PlannedDsl.planned(app, db.tables());

    @Test
    void bindsEachValueWhereItsParameterIsEvenWhenAParameterOccursTwice() {
        UUID a = insertEvent("a.happened");
        UUID b = insertEvent("b.happened");
        insertEvent("c.happened");
        Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
        Param<OffsetDateTime> at = DSL.param("at", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
        Param<String> type = DSL.param("type", SQLDataType.VARCHAR);
        RenderedStatement routed = RenderedStatement.of(
                planned,
                planned.update(OUTBOX_EVENTS)
                        .set(OUTBOX_EVENTS.ROUTED_AT, DSL.greatest(at, OUTBOX_EVENTS.CREATED_AT))
                        .where(OUTBOX_EVENTS.ID.eq(DSL.any(ids)))
                        .and(OUTBOX_EVENTS.EVENT_TYPE.ne(type))
                        .and(OUTBOX_EVENTS.CREATED_AT.le(at)),
                ids,
                at,
                type);
        OffsetDateTime later = OffsetDateTime.now(ZoneOffset.UTC).plusDays(1);

        assertThat(routed.execute(planned, new UUID[] {a, b}, later, "b.happened"))
                .isEqualTo(1);
        assertThat(routed.execute(planned, new UUID[] {a, b}, later, "nothing")).isEqualTo(2);

        List<String> types = new ArrayList<>();
        Param<OffsetDateTime> since = DSL.param("since", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
        RenderedStatement read = RenderedStatement.of(
                planned,
                planned.select(OUTBOX_EVENTS.EVENT_TYPE)
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ROUTED_AT.ge(since))
                        .orderBy(OUTBOX_EVENTS.EVENT_TYPE),
                since);
        read.query(
                planned,
                rs -> {
                    while (rs.next()) {
                        types.add(rs.getString(1));
                    }
                    return null;
                },
                later.minusSeconds(1));
        assertThat(types).containsExactly("a.happened", "b.happened");
    }

    @Test
    void rendersTheTablesOfThePlannedContextAndNeverPreparesOnTheServer() {
        Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
        RenderedStatement count = RenderedStatement.of(
                planned, planned.selectCount().from(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(DSL.any(ids))), ids);
        assertThat(count.sql()).contains(db.tables().events());
        long prepared = app.connectionResult(connection -> {
            DSLContext session = PlannedDsl.planned(DSL.using(connection, SQLDialect.POSTGRES), db.tables());
            for (int i = 0; i < 20; i++) { // pgjdbc's default prepares on the server from the fifth execution
                long found = count.query(
                        session, rs -> rs.next() ? rs.getLong(1) : -1L, (Object) new UUID[] {UUID.randomUUID()});
                assertThat(found).isZero();
            }
            return DSL.using(connection, SQLDialect.POSTGRES)
                    .fetchOne("select count(*) from pg_prepared_statements where statement like '%outbox_events%'")
                    .get(0, Long.class);
        });
        assertThat(prepared).isZero();
    }

    @Test
    void aPreambleRunsBeforeTheStatementInItsTransactionAndTheStatementsResultIsWhatComesBack() {
        UUID a = insertEvent("a.happened");
        Param<String> name = DSL.param("name", SQLDataType.VARCHAR);
        Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
        RenderedStatement setting = RenderedStatement.of(
                        planned,
                        planned.select(DSL.field("current_setting({0})", String.class, name), DSL.count())
                                .from(OUTBOX_EVENTS)
                                .where(OUTBOX_EVENTS.ID.eq(DSL.any(ids))),
                        name,
                        ids)
                .after("SELECT set_config('application_name', 'outbox-preamble', true)");
        RenderedStatement touch = RenderedStatement.of(
                        planned,
                        planned.update(OUTBOX_EVENTS)
                                .set(
                                        OUTBOX_EVENTS.EVENT_TYPE,
                                        DSL.field("current_setting('application_name')", String.class))
                                .where(OUTBOX_EVENTS.ID.eq(DSL.any(ids))),
                        ids)
                .after("SELECT set_config('application_name', 'outbox-touched', true)");
        List<String> said = new ArrayList<>();
        planned.transaction(tx -> {
            said.add(setting.query(
                    tx.dsl(),
                    rs -> rs.next() ? rs.getString(1) + " " + rs.getInt(2) : "none",
                    "application_name",
                    new UUID[] {a, UUID.randomUUID()}));
            said.add(String.valueOf(touch.execute(tx.dsl(), (Object) new UUID[] {a})));
        });
        said.add(planned.fetchOne("show application_name").get(0, String.class));
        assertThat(said.subList(0, 2)).containsExactly("outbox-preamble 1", "1");
        assertThat(said.get(2)).doesNotStartWith("outbox-");
        assertThat(planned.fetchValue(OUTBOX_EVENTS.EVENT_TYPE, OUTBOX_EVENTS.ID.eq(a)))
                .isEqualTo("outbox-touched");
    }

    @Test
    void refusesAPreambleWithParametersOrMoreThanOneStatement() {
        Param<UUID> id = DSL.param("id", SQLDataType.UUID);
        RenderedStatement count = RenderedStatement.of(
                planned, planned.selectCount().from(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)), id);
        assertThatThrownBy(() -> count.after("SELECT set_config('a.b', ?, true)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without parameters");
        assertThatThrownBy(() -> count.after("SELECT 1; SELECT 2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one statement");
        assertThatThrownBy(() -> count.after("SELECT 1").after("SELECT 2")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void refusesAQueryWithAValueThatIsNeitherInlinedNorAParameter() {
        Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
        assertThatThrownBy(() -> RenderedStatement.of(
                        planned,
                        planned.selectCount()
                                .from(OUTBOX_EVENTS)
                                .where(OUTBOX_EVENTS.ID.eq(DSL.any(ids)))
                                .and(OUTBOX_EVENTS.EVENT_TYPE.eq("a.happened")),
                        ids))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bind value 2")
                .hasMessageContaining("a.happened");
    }

    @Test
    void refusesTwoParametersOfOneName() {
        Param<UUID> one = DSL.param("id", SQLDataType.UUID);
        Param<UUID> two = DSL.param("id", SQLDataType.UUID);
        assertThatThrownBy(() -> RenderedStatement.of(
                        planned,
                        planned.selectCount()
                                .from(OUTBOX_EVENTS)
                                .where(OUTBOX_EVENTS.ID.eq(one))
                                .or(OUTBOX_EVENTS.ID.eq(two)),
                        one,
                        two))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name of its own");
    }

    @Test
    void refusesTheWrongNumberOfValues() {
        Param<UUID> id = DSL.param("id", SQLDataType.UUID);
        RenderedStatement count = RenderedStatement.of(
                planned, planned.selectCount().from(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)), id);
        assertThatThrownBy(() -> count.execute(planned))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 1 values, got 0");
    }

    private UUID insertEvent(String type) {
        UUID id = UUID.randomUUID();
        planned.insertInto(
                        OUTBOX_EVENTS,
                        OUTBOX_EVENTS.ID,
                        OUTBOX_EVENTS.EVENT_TYPE,
                        OUTBOX_EVENTS.PAYLOAD,
                        OUTBOX_EVENTS.CREATED_AT)
                .values(
                        id,
                        type,
                        JSONB.valueOf("{}"),
                        OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(1))
                .execute();
        return id;
    }
}
