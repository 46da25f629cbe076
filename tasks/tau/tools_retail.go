package tau

import (
	"sort"

	"github.com/reasonbench/reasonbench/pyval"
)

// The retail domain's tools, each doing what the reference's tool of the
// same name does, step for step (see tools_airline.go).

func retailTools() []*toolImpl {
	address := []string{"address1", "address2", "city", "state", "country", "zip"}
	return []*toolImpl{
		{name: "calculate", class: "Calculate", params: []string{"expression"}, run: calculate},
		{name: "cancel_pending_order", class: "CancelPendingOrder", params: []string{"order_id", "reason"}, run: cancelPendingOrder},
		{name: "exchange_delivered_order_items", class: "ExchangeDeliveredOrderItems", params: []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}, run: exchangeDeliveredOrderItems},
		{name: "find_user_id_by_email", class: "FindUserIdByEmail", params: []string{"email"}, run: findUserIDByEmail},
		{name: "find_user_id_by_name_zip", class: "FindUserIdByNameZip", params: []string{"first_name", "last_name", "zip"}, run: findUserIDByNameZip},
		{name: "get_order_details", class: "GetOrderDetails", params: []string{"order_id"}, run: getOrderDetails},
		{name: "get_product_details", class: "GetProductDetails", params: []string{"product_id"}, run: getProductDetails},
		{name: "get_user_details", class: "GetUserDetails", params: []string{"user_id"}, run: getUserDetails},
		{name: "list_all_product_types", class: "ListAllProductTypes", run: listAllProductTypes},
		{name: "modify_pending_order_address", class: "ModifyPendingOrderAddress", params: append([]string{"order_id"}, address...), run: modifyPendingOrderAddress},
		{name: "modify_pending_order_items", class: "ModifyPendingOrderItems", params: []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}, run: modifyPendingOrderItems},
		{name: "modify_pending_order_payment", class: "ModifyPendingOrderPayment", params: []string{"order_id", "payment_method_id"}, run: modifyPendingOrderPayment},
		{name: "modify_user_address", class: "ModifyUserAddress", params: append([]string{"user_id"}, address...), run: modifyUserAddress},
		{name: "return_delivered_order_items", class: "ReturnDeliveredOrderItems", params: []string{"order_id", "item_ids", "payment_method_id"}, run: returnDeliveredOrderItems},
		{name: "think", class: "Think", params: []string{"thought"}, run: think},
		{name: "transfer_to_human_agents", class: "TransferToHumanAgents", params: []string{"summary"}, run: transferToHumanAgents},
	}
}

// userPaymentMethods is data["users"][order["user_id"]]["payment_methods"],
// for reading or (mutable) for writing.
func userPaymentMethods(db *DB, order value, mutable bool) value {
	users := db.table("users")
	uid := getStr(order, "user_id")
	if mutable {
		return getStr(users.mut(uid), "payment_methods")
	}
	return getStr(users.get(uid), "payment_methods")
}

func cancelPendingOrder(db *DB, a []value) value {
	orderID, reason := a[0], a[1]
	orders := db.table("orders")
	if !orders.has(orderID) {
		return "Error: order not found"
	}
	order := orders.mut(orderID)
	if !pyval.Equal(getStr(order, "status"), "pending") {
		return "Error: non-pending order cannot be cancelled"
	}
	if !contains(pyval.NewList("no longer needed", "ordered by mistake"), reason) {
		return "Error: invalid reason"
	}

	// Refund every payment; gift cards at once.
	var refunds []value
	for _, payment := range iterate(getStr(order, "payment_history")) {
		paymentID := getStr(payment, "payment_method_id")
		refunds = append(refunds, dict(
			"transaction_type", "refund",
			"amount", getStr(payment, "amount"),
			"payment_method_id", paymentID,
		))
		if contains(paymentID, "gift_card") {
			method := getItem(userPaymentMethods(db, order, true), paymentID)
			setItem(method, "balance", add(getStr(method, "balance"), getStr(payment, "amount"), true))
			setItem(method, "balance", round2(getStr(method, "balance")))
		}
	}
	setItem(order, "status", "cancelled")
	setItem(order, "cancel_reason", reason)
	extendWith(getStr(order, "payment_history"), refunds)
	return dumps(order)
}

// checkItemsPresent returns the item id of itemIDs that the order holds
// fewer times than itemIDs lists it, or nil.
func checkItemsPresent(order, itemIDs value) (missing value, found bool) {
	var all []value
	for _, item := range iterate(getStr(order, "items")) {
		all = append(all, getStr(item, "item_id"))
	}
	allList := pyval.NewList(all...)
	for i, id := range iterate(itemIDs) {
		self := -1
		if _, ok := itemIDs.(*pyval.List); ok {
			self = i
		}
		if countIn(itemIDs, id, self) > countIn(allList, id, -1) {
			return id, true
		}
	}
	return nil, false
}

// firstItem is [item for item in order["items"] if item["item_id"] == id][0].
func firstItem(order, id value) value {
	var match []value
	for _, item := range iterate(getStr(order, "items")) {
		if pyval.Equal(getStr(item, "item_id"), id) {
			match = append(match, item)
		}
	}
	if len(match) == 0 {
		raise("IndexError", "list index out of range")
	}
	return match[0]
}

// zipped is zip(a, b).
func zipped(a, b value) [][2]value {
	xs, ys := iterate(a), iterate(b)
	n := min(len(xs), len(ys))
	out := make([][2]value, n)
	for i := range out {
		out[i] = [2]value{xs[i], ys[i]}
	}
	return out
}

// variants is products[product_id]["variants"].
func variants(db *DB, productID value) value {
	return getStr(db.table("products").get(productID), "variants")
}

// priceDifference is the sum of new minus old prices over the pairs, or
// the error string for a new item that is missing or unavailable.
func priceDifference(db *DB, order value, pairs [][2]value) (value, string) {
	var diff value = int64(0)
	for _, p := range pairs {
		item := firstItem(order, p[0])
		productID := getStr(item, "product_id")
		if !(contains(variants(db, productID), p[1]) && pyval.Truth(getStr(getItem(variants(db, productID), p[1]), "available"))) {
			return nil, "Error: new item " + str(p[1]) + " not found or available"
		}
		oldPrice := getStr(item, "price")
		newPrice := getStr(getItem(variants(db, productID), p[1]), "price")
		diff = add(diff, sub(newPrice, oldPrice, false), true)
	}
	return diff, ""
}

func exchangeDeliveredOrderItems(db *DB, a []value) value {
	orderID, itemIDs, newItemIDs, paymentMethodID := a[0], a[1], a[2], a[3]
	orders := db.table("orders")
	if !orders.has(orderID) {
		return "Error: order not found"
	}
	order := orders.mut(orderID)
	if !pyval.Equal(getStr(order, "status"), "delivered") {
		return "Error: non-delivered order cannot be exchanged"
	}
	if id, ok := checkItemsPresent(order, itemIDs); ok {
		return "Error: " + str(id) + " not found"
	}
	if length(itemIDs) != length(newItemIDs) {
		return "Error: the number of items to be exchanged should match"
	}
	diff, msg := priceDifference(db, order, zipped(itemIDs, newItemIDs))
	if msg != "" {
		return msg
	}
	diff = round2(diff)

	if !contains(userPaymentMethods(db, order, false), paymentMethodID) {
		return "Error: payment method not found"
	}
	method := getItem(userPaymentMethods(db, order, false), paymentMethodID)
	if pyval.Equal(getStr(method, "source"), "gift_card") && lt(getStr(method, "balance"), diff) {
		return "Error: insufficient gift card balance to pay for the price difference"
	}

	setItem(order, "status", "exchange requested")
	setItem(order, "exchange_items", sortedOf(itemIDs))
	setItem(order, "exchange_new_items", sortedOf(newItemIDs))
	setItem(order, "exchange_payment_method_id", paymentMethodID)
	setItem(order, "exchange_price_difference", diff)
	return dumps(order)
}

func findUserIDByEmail(db *DB, a []value) value {
	email := a[0]
	keys, profiles := db.table("users").keysValues()
	for i, profile := range profiles {
		if lowerOf(getStr(profile, "email")) == lowerOf(email) {
			return keys[i]
		}
	}
	return "Error: user not found"
}

func findUserIDByNameZip(db *DB, a []value) value {
	firstName, lastName, zip := a[0], a[1], a[2]
	keys, profiles := db.table("users").keysValues()
	for i, profile := range profiles {
		if lowerOf(getStr(getStr(profile, "name"), "first_name")) == lowerOf(firstName) &&
			lowerOf(getStr(getStr(profile, "name"), "last_name")) == lowerOf(lastName) &&
			pyval.Equal(getStr(getStr(profile, "address"), "zip"), zip) {
			return keys[i]
		}
	}
	return "Error: user not found"
}

func getOrderDetails(db *DB, a []value) value {
	orders := db.table("orders")
	if orders.has(a[0]) {
		return dumps(orders.get(a[0]))
	}
	return "Error: order not found"
}

func getProductDetails(db *DB, a []value) value {
	products := db.table("products")
	if products.has(a[0]) {
		return dumps(products.get(a[0]))
	}
	return "Error: product not found"
}

func listAllProductTypes(db *DB, _ []value) value {
	// {name: product_id}, a later product of the same name winning, then
	// sorted by name.
	byName := pyval.NewDict(0)
	for _, product := range db.table("products").values() {
		name := getStr(product, "name")
		s, ok := name.(string)
		if !ok {
			checkHashable(name)
			raise("TypeError", "'<' not supported between instances of '%s' and 'str'", tn(name))
		}
		byName.Set(s, getStr(product, "product_id"))
	}
	names := byName.Keys()
	sort.Strings(names)
	out := pyval.NewDict(len(names))
	for _, n := range names {
		v, _ := byName.Get(n)
		out.Set(n, v)
	}
	return dumps(out)
}

// addressDict is the address the two address tools write, in their order.
func addressDict(a []value) *pyval.Dict {
	return dict("address1", a[0], "address2", a[1], "city", a[2], "state", a[3], "country", a[4], "zip", a[5])
}

func modifyPendingOrderAddress(db *DB, a []value) value {
	orders := db.table("orders")
	if !orders.has(a[0]) {
		return "Error: order not found"
	}
	order := orders.mut(a[0])
	if !pyval.Equal(getStr(order, "status"), "pending") {
		return "Error: non-pending order cannot be modified"
	}
	setItem(order, "address", addressDict(a[1:]))
	return dumps(order)
}

func modifyPendingOrderItems(db *DB, a []value) value {
	orderID, itemIDs, newItemIDs, paymentMethodID := a[0], a[1], a[2], a[3]
	orders := db.table("orders")
	if !orders.has(orderID) {
		return "Error: order not found"
	}
	order := orders.mut(orderID)
	if !pyval.Equal(getStr(order, "status"), "pending") {
		return "Error: non-pending order cannot be modified"
	}
	if id, ok := checkItemsPresent(order, itemIDs); ok {
		return "Error: " + str(id) + " not found"
	}
	if length(itemIDs) != length(newItemIDs) {
		return "Error: the number of items to be exchanged should match"
	}
	diff, msg := priceDifference(db, order, zipped(itemIDs, newItemIDs))
	if msg != "" {
		return msg
	}

	if !contains(userPaymentMethods(db, order, false), paymentMethodID) {
		return "Error: payment method not found"
	}
	method := getItem(userPaymentMethods(db, order, true), paymentMethodID)
	if pyval.Equal(getStr(method, "source"), "gift_card") && lt(getStr(method, "balance"), diff) {
		return "Error: insufficient gift card balance to pay for the new item"
	}

	kind := "refund"
	if gt(diff, int64(0)) {
		kind = "payment"
	}
	appendTo(getStr(order, "payment_history"), dict(
		"transaction_type", kind,
		"amount", absOf(diff),
		"payment_method_id", paymentMethodID,
	))
	if pyval.Equal(getStr(method, "source"), "gift_card") {
		setItem(method, "balance", sub(getStr(method, "balance"), diff, true))
		setItem(method, "balance", round2(getStr(method, "balance")))
	}

	for _, p := range zipped(itemIDs, newItemIDs) {
		item := firstItem(order, p[0])
		setItem(item, "item_id", p[1])
		productID := getStr(item, "product_id")
		setItem(item, "price", getStr(getItem(variants(db, productID), p[1]), "price"))
		// The reference stores the product's own options dict; a copy
		// keeps the shared data out of this DB's writes (nothing writes
		// into an item's options).
		setItem(item, "options", pyval.Clone(getStr(getItem(variants(db, productID), p[1]), "options")))
	}
	setItem(order, "status", "pending (item modified)")
	return dumps(order)
}

func modifyPendingOrderPayment(db *DB, a []value) value {
	orderID, paymentMethodID := a[0], a[1]
	orders := db.table("orders")
	if !orders.has(orderID) {
		return "Error: order not found"
	}
	order := orders.mut(orderID)
	if !pyval.Equal(getStr(order, "status"), "pending") {
		return "Error: non-pending order cannot be modified"
	}
	if !contains(userPaymentMethods(db, order, false), paymentMethodID) {
		return "Error: payment method not found"
	}
	history := getStr(order, "payment_history")
	if length(history) > 1 || !pyval.Equal(getStr(getItem(history, int64(0)), "transaction_type"), "payment") {
		return "Error: there should be exactly one payment for a pending order"
	}
	if pyval.Equal(getStr(getItem(getStr(order, "payment_history"), int64(0)), "payment_method_id"), paymentMethodID) {
		return "Error: the new payment method should be different from the current one"
	}

	amount := getStr(getItem(getStr(order, "payment_history"), int64(0)), "amount")
	method := getItem(userPaymentMethods(db, order, true), paymentMethodID)
	if pyval.Equal(getStr(method, "source"), "gift_card") && lt(getStr(method, "balance"), amount) {
		return "Error: insufficient gift card balance to pay for the order"
	}

	extendWith(getStr(order, "payment_history"), []value{
		dict(
			"transaction_type", "payment",
			"amount", amount,
			"payment_method_id", paymentMethodID,
		),
		dict(
			"transaction_type", "refund",
			"amount", amount,
			"payment_method_id", getStr(getItem(getStr(order, "payment_history"), int64(0)), "payment_method_id"),
		),
	})
	if pyval.Equal(getStr(method, "source"), "gift_card") {
		setItem(method, "balance", sub(getStr(method, "balance"), amount, true))
		setItem(method, "balance", round2(getStr(method, "balance")))
	}
	// A refund to a gift card is credited at once.
	oldID := getStr(getItem(getStr(order, "payment_history"), int64(0)), "payment_method_id")
	if contains(oldID, "gift_card") {
		old := getItem(userPaymentMethods(db, order, true), getStr(getItem(getStr(order, "payment_history"), int64(0)), "payment_method_id"))
		setItem(old, "balance", add(getStr(old, "balance"), amount, true))
		setItem(old, "balance", round2(getStr(old, "balance")))
	}
	return dumps(order)
}

func modifyUserAddress(db *DB, a []value) value {
	users := db.table("users")
	if !users.has(a[0]) {
		return "Error: user not found"
	}
	user := users.mut(a[0])
	setItem(user, "address", addressDict(a[1:]))
	return dumps(user)
}

func returnDeliveredOrderItems(db *DB, a []value) value {
	orderID, itemIDs, paymentMethodID := a[0], a[1], a[2]
	orders := db.table("orders")
	if !orders.has(orderID) {
		return "Error: order not found"
	}
	order := orders.mut(orderID)
	if !pyval.Equal(getStr(order, "status"), "delivered") {
		return "Error: non-delivered order cannot be returned"
	}
	if !contains(userPaymentMethods(db, order, false), paymentMethodID) {
		return "Error: payment method not found"
	}
	if !contains(paymentMethodID, "gift_card") &&
		!pyval.Equal(paymentMethodID, getStr(getItem(getStr(order, "payment_history"), int64(0)), "payment_method_id")) {
		return "Error: payment method should be either the original payment method or a gift card"
	}
	if _, ok := checkItemsPresent(order, itemIDs); ok {
		return "Error: some item not found"
	}

	setItem(order, "status", "return requested")
	setItem(order, "return_items", sortedOf(itemIDs))
	setItem(order, "return_payment_method_id", paymentMethodID)
	return dumps(order)
}
