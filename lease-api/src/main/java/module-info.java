/**
 * The lease and outbox contracts every Leasebox module shares: {@link dev.leasebox.lease.LeaseManager} and its
 * fencing tokens, the outbox store contracts the drain claims through, and the SPI a coordination backend
 * implements to be opened by name.
 */
module dev.leasebox.api {
    requires org.slf4j;

    exports dev.leasebox.lease;
    exports dev.leasebox.lease.spi;
    exports dev.leasebox.outbox;

    uses dev.leasebox.lease.spi.LeaseBackend;
}
