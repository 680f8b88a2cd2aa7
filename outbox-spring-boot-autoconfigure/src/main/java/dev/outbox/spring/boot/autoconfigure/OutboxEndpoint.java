package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.relay.OutboxStatus;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The actuator endpoint {@code outbox}, read only: {@code GET /actuator/outbox} shows the status of the
 * operator's {@code status} command, the object {@code status --json} prints ({@link OutboxStatus#toMap()}).
 * With {@code outbox.endpoint.write-enabled=true} the endpoint is {@link OutboxWritableEndpoint}, which
 * also requeues failed deliveries.
 */
@Endpoint(id = OutboxEndpoint.ID)
public class OutboxEndpoint {

    /** The endpoint's id. */
    public static final String ID = "outbox";

    private final DataSource dataSource;
    private final OutboxAdmin admin;

    /** Reads the status of {@code admin}'s tables through {@code dataSource}. */
    public OutboxEndpoint(DataSource dataSource, OutboxAdmin admin) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.admin = Objects.requireNonNull(admin, "admin");
    }

    /** The outbox's status now. */
    @ReadOperation
    public Map<String, Object> status() {
        return OutboxStatus.read(dataSource, admin.tables(), Clock.systemUTC()).toMap();
    }

    /** The admin of the write operations. */
    protected final OutboxAdmin admin() {
        return admin;
    }
}
