package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** The builder refuses incomplete or wrong settings and names the field. */
class OutboxWorkerBuilderTest {

    record Ping(String id) {}

    private static OutboxWorker.Builder complete() {
        return OutboxWorker.builder()
                .dsl(DSL.using(SQLDialect.POSTGRES))
                .connectionFactory(new ConnectionFactory())
                .queue("emails", 2, 10)
                .handler("ping", Ping.class, (event, context) -> {});
    }

    @Test
    void refusesAWorkerWithoutADatabase() {
        assertThatThrownBy(() -> OutboxWorker.builder()
                        .connectionFactory(new ConnectionFactory())
                        .queue("q", 1, 1)
                        .handler("ping", Ping.class, (e, c) -> {})
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource or dsl");
    }

    @Test
    void refusesBothADataSourceAndADsl() {
        assertThatThrownBy(() -> complete()
                        .dataSource((DataSource) java.lang.reflect.Proxy.newProxyInstance(
                                getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, a) -> null))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource or dsl");
    }

    @Test
    void refusesAWorkerWithoutABroker() {
        assertThatThrownBy(() -> OutboxWorker.builder()
                        .dsl(DSL.using(SQLDialect.POSTGRES))
                        .queue("q", 1, 1)
                        .handler("ping", Ping.class, (e, c) -> {})
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectionFactory or amqpUri");
    }

    @Test
    void refusesAWorkerWithoutQueuesOrHandlers() {
        assertThatThrownBy(() -> OutboxWorker.builder()
                        .dsl(DSL.using(SQLDialect.POSTGRES))
                        .connectionFactory(new ConnectionFactory())
                        .handler("ping", Ping.class, (e, c) -> {})
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> OutboxWorker.builder()
                        .dsl(DSL.using(SQLDialect.POSTGRES))
                        .connectionFactory(new ConnectionFactory())
                        .queue("q", 1, 1)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("handler");
    }

    @Test
    void refusesTwoHandlersForOneJobTypeAndOneQueueTwice() {
        assertThatThrownBy(() -> complete().handler("ping", Ping.class, (e, c) -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ping'");
        assertThatThrownBy(() -> complete().queue("emails", 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'emails'");
    }

    @Test
    void refusesAQueueTheRelayCouldNeverDeclareCountingBytes() {
        assertThatThrownBy(() -> complete().queue("bad_" + "é".repeat(200), 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 255 bytes in UTF-8")
                .hasMessageContaining("…(+");
        assertThatThrownBy(() -> complete().queue("amq.gen-x", 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserved by the broker");
        assertThatThrownBy(() -> complete().queue("a\nb", 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a\\u000ab' must not contain a control character");
        assertThatThrownBy(() -> complete().queue(" ", 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-blank");
    }

    @Test
    void refusesAPrefetchBelowTheConcurrencyAndANegativeGrace() {
        assertThatThrownBy(() -> QueueSettings.of(8, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefetch");
        assertThatThrownBy(() -> QueueSettings.of(0, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concurrency");
        assertThatThrownBy(() -> complete().shutdownGrace(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shutdownGrace");
    }

    @Test
    void refusesAGraceOfMoreThanAHundredYears() {
        assertThatThrownBy(() -> complete().shutdownGrace(java.time.temporal.ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("shutdownGrace must be at most 36500 days (100 years), got PT");
    }

    @Test
    void refusesABadAmqpUriWithoutEchoingIt() {
        assertThatThrownBy(() -> OutboxWorker.builder()
                        .dsl(DSL.using(SQLDialect.POSTGRES))
                        .amqpUri("http://user:s3cret@host")
                        .queue("q", 1, 1)
                        .handler("ping", Ping.class, (e, c) -> {})
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("amqpUri")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void refusesAnAmqpUriItCannotReadNamingTheFieldAndNotTheUri() {
        for (String uri :
                new String[] {"amqp://u:s3cret@bad_rabbit:abc/%2F", "amqp://u:s3cret@/%2F", "amqp://u:s3cret@host/a/b"
                }) {
            assertThatThrownBy(() -> OutboxWorker.builder()
                            .dsl(DSL.using(SQLDialect.POSTGRES))
                            .amqpUri(uri)
                            .queue("q", 1, 1)
                            .handler("ping", Ping.class, (e, c) -> {})
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("amqpUri: ")
                    .hasMessageNotContaining("s3cret");
        }
    }

    @Test
    void acceptsAnUnderscoreHost() {
        assertThatCode(() -> OutboxWorker.builder()
                        .dsl(DSL.using(SQLDialect.POSTGRES))
                        .amqpUri("amqp://u:s3cret@bad_rabbit:5672/%2F")
                        .queue("q", 1, 1)
                        .handler("ping", Ping.class, (e, c) -> {})
                        .build())
                .doesNotThrowAnyException();
    }

    @Test
    void quotesABoundedEscapedPrefixOfAJobTypeRegisteredTwice() {
        String hostile = "bad\n\u001b[31m" + "x".repeat(1 << 20);

        assertThatThrownBy(() -> complete()
                        .handler(hostile, Ping.class, (e, c) -> {})
                        .handler(hostile, Ping.class, (e, c) -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("job type 'bad\\u000a\\u001b[31mxxx")
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage())
                        .contains("…(+")
                        .hasSizeLessThan(1_000)
                        .doesNotContain("\n", "\u001b"));
    }
}
