package com.example.boot.orders;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;

import dev.outbox.api.Outbox;
import java.util.List;
import org.jooq.DSLContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its event commit together, or neither does. */
@Service
public class OrderService {

    private final DSLContext dsl;
    private final Outbox outbox;

    public OrderService(DSLContext dsl, Outbox outbox) {
        this.dsl = dsl;
        this.outbox = outbox;
    }

    // snippet:boot-sample-place
    @Transactional
    public void place(String orderId, String email) {
        dsl.insertInto(table("orders"))
                .set(field("id"), orderId)
                .set(field("email"), email)
                .execute();
        outbox.record(dsl, new OrderPlaced(orderId, email));
    }
    // end-snippet

    /** All of them or none: a duplicate order id fails the insert, and every event recorded before it rolls back. */
    @Transactional
    public void placeAll(List<OrderPlaced> orders) {
        for (OrderPlaced order : orders) {
            place(order.orderId(), order.email());
        }
    }
}
