package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.pool.HikariPool;
import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.RelayException;
import java.io.EOFException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which database errors a looping relay rides out and which end it. */
class DatabaseErrorsTest {

    private static DataAccessException failed(String sqlState) {
        return new DataAccessException("SQL [...]; " + sqlState, new SQLException("the server's own words", sqlState));
    }

    @ParameterizedTest
    @ValueSource(strings = {"08000", "08001", "08003", "08006", "57P01", "57P02", "57P03", "53300", "40001", "40P01"})
    void anOutageOrARestartIsTransient(String sqlState) {
        RelayException e = DatabaseErrors.classify(failed(sqlState));

        assertThat(e)
                .isInstanceOf(DatabaseUnavailableException.class)
                .hasMessage("database unavailable (SQLException, SQLState " + sqlState + ")");
    }

    @ParameterizedTest
    @ValueSource(strings = {"42P01", "42501", "28P01", "28000", "3D000", "23505"})
    void aMissingTableALoginOrAnyOtherAnswerOfTheServerIsFatal(String sqlState) {
        RelayException e = DatabaseErrors.classify(failed(sqlState));

        assertThat(e)
                .isNotInstanceOf(DatabaseUnavailableException.class)
                .hasMessageStartingWith("database error (SQLException, SQLState " + sqlState + ")")
                .hasMessageNotContaining("the server's own words");
    }

    @Test
    void aLostConnectionWithoutSqlStateIsTransient() {
        assertThat(DatabaseOutages.isTransient(
                        new DataAccessException("x", new SQLException("x", null, new EOFException()))))
                .isTrue();
        assertThat(DatabaseOutages.isTransient(new DataAccessException("x", new ConnectException())))
                .isTrue();
        assertThat(DatabaseOutages.isTransient(
                        new DataAccessException("x", new SQLTransientConnectionException("pool timed out"))))
                .isTrue();
    }

    @Test
    void aPoolTimeoutCausedByARefusedLoginIsFatal() {
        SQLException login = new SQLException("password authentication failed", "28P01");
        DataAccessException e =
                new DataAccessException("x", new SQLTransientConnectionException("pool timed out", "28P01", login));

        assertThat(DatabaseOutages.isTransient(e)).isFalse();
        assertThat(DatabaseErrors.classify(e)).hasMessageContaining("refused the login");
    }

    @Test
    void aPoolThatCannotStartForAnOutageIsTransient() {
        HikariPool.PoolInitializationException e = new HikariPool.PoolInitializationException(
                new SQLException("Connection refused", "08001", new ConnectException()));

        assertThat(DatabaseOutages.isTransient(e)).isTrue();
    }
}
