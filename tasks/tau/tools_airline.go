package tau

import (
	"github.com/reasonbench/reasonbench/pyval"
	"github.com/reasonbench/reasonbench/tasks/tau/calc"
)

// The airline domain's tools, each doing what the reference's tool of the
// same name does, step for step (see ops.go for how Python's operators and
// exceptions are reproduced). Records a tool may write to are taken with
// mut (the DB's own copy), records it only reads with get.

func airlineTools() []*toolImpl {
	return []*toolImpl{
		{name: "book_reservation", class: "BookReservation", params: []string{"user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"}, run: bookReservation},
		{name: "calculate", class: "Calculate", params: []string{"expression"}, run: calculate},
		{name: "cancel_reservation", class: "CancelReservation", params: []string{"reservation_id"}, run: cancelReservation},
		{name: "get_reservation_details", class: "GetReservationDetails", params: []string{"reservation_id"}, run: getReservationDetails},
		{name: "get_user_details", class: "GetUserDetails", params: []string{"user_id"}, run: getUserDetails},
		{name: "list_all_airports", class: "ListAllAirports", run: listAllAirports},
		{name: "search_direct_flight", class: "SearchDirectFlight", params: []string{"origin", "destination", "date"}, run: searchDirectFlight},
		{name: "search_onestop_flight", class: "SearchOnestopFlight", params: []string{"origin", "destination", "date"}, run: searchOnestopFlight},
		{name: "send_certificate", class: "SendCertificate", params: []string{"user_id", "amount"}, run: sendCertificate},
		{name: "think", class: "Think", params: []string{"thought"}, run: think},
		{name: "transfer_to_human_agents", class: "TransferToHumanAgents", params: []string{"summary"}, run: transferToHumanAgents},
		{name: "update_reservation_baggages", class: "UpdateReservationBaggages", params: []string{"reservation_id", "total_baggages", "nonfree_baggages", "payment_id"}, run: updateReservationBaggages},
		{name: "update_reservation_flights", class: "UpdateReservationFlights", params: []string{"reservation_id", "cabin", "flights", "payment_id"}, run: updateReservationFlights},
		{name: "update_reservation_passengers", class: "UpdateReservationPassengers", params: []string{"reservation_id", "passengers"}, run: updateReservationPassengers},
	}
}

// dict builds a dict literal from key, value pairs, in order.
func dict(kv ...value) *pyval.Dict {
	d := pyval.NewDict(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

// withoutDates is {k: v for k, v in flight.items() if k != "dates"}.
func withoutDates(flight value) *pyval.Dict {
	f, ok := flight.(*pyval.Dict)
	if !ok {
		raise("AttributeError", "'%s' object has no attribute 'items'", tn(flight))
	}
	out := pyval.NewDict(f.Len())
	for i := 0; i < f.Len(); i++ {
		if f.Key(i) != "dates" {
			out.Set(f.Key(i), f.Val(i))
		}
	}
	return out
}

// update is d.update(other) for a dict other.
func update(d *pyval.Dict, other value) {
	o, ok := other.(*pyval.Dict)
	if !ok {
		raise("TypeError", "'%s' object is not iterable", tn(other))
	}
	for i := 0; i < o.Len(); i++ {
		d.Set(o.Key(i), o.Val(i))
	}
}

func bookReservation(db *DB, a []value) value {
	userID, origin, destination, flightType, cabin := a[0], a[1], a[2], a[3], a[4]
	flights, passengers, paymentMethods := a[5], a[6], a[7]
	totalBaggages, nonfreeBaggages, insurance := a[8], a[9], a[10]
	reservations, users, flightTable := db.table("reservations"), db.table("users"), db.table("flights")
	if !users.has(userID) {
		return "Error: user not found"
	}
	user := users.mut(userID)

	// At most three reservations per task: the first free of three ids.
	reservationID := "HATHAT"
	if reservations.has(reservationID) {
		reservationID = "HATHAU"
		if reservations.has(reservationID) {
			reservationID = "HATHAV"
		}
	}
	reservation := dict(
		"reservation_id", reservationID,
		"user_id", userID,
		"origin", origin,
		"destination", destination,
		"flight_type", flightType,
		"cabin", cabin,
		"flights", pyval.Clone(flights),
		"passengers", passengers,
		"payment_history", paymentMethods,
		"created_at", "2024-05-15T15:00:00",
		"total_baggages", totalBaggages,
		"nonfree_baggages", nonfreeBaggages,
		"insurance", insurance,
	)

	var totalPrice value = int64(0)
	for _, flight := range iterate(getStr(reservation, "flights")) {
		flightNumber := getStr(flight, "flight_number")
		if !flightTable.has(flightNumber) {
			return "Error: flight " + str(flightNumber) + " not found"
		}
		flightData := flightTable.get(flightNumber)
		if date := getStr(flight, "date"); !contains(getStr(flightData, "dates"), date) {
			return "Error: flight " + str(flightNumber) + " not found on date " + str(getStr(flight, "date"))
		}
		flightDateData := getItem(getStr(flightData, "dates"), getStr(flight, "date"))
		if !pyval.Equal(getStr(flightDateData, "status"), "available") {
			return "Error: flight " + str(flightNumber) + " not available on date " + str(getStr(flight, "date"))
		}
		if lt(getItem(getStr(flightDateData, "available_seats"), cabin), int64(length(passengers))) {
			return "Error: not enough seats on flight " + str(flightNumber)
		}
		setItem(flight, "price", getItem(getStr(flightDateData, "prices"), cabin))
		setItem(flight, "origin", getStr(flightData, "origin"))
		setItem(flight, "destination", getStr(flightData, "destination"))
		totalPrice = add(totalPrice, mul(getStr(flight, "price"), int64(length(passengers))), true)
	}

	if pyval.Equal(insurance, "yes") {
		totalPrice = add(totalPrice, mul(int64(30), int64(length(passengers))), true)
	}
	totalPrice = add(totalPrice, mul(int64(50), nonfreeBaggages), true)

	for _, pm := range iterate(paymentMethods) {
		paymentID := getStr(pm, "payment_id")
		amount := getStr(pm, "amount")
		if !contains(getStr(user, "payment_methods"), paymentID) {
			return "Error: payment method " + str(paymentID) + " not found"
		}
		method := getItem(getStr(user, "payment_methods"), paymentID)
		if contains(pyval.NewList("gift_card", "certificate"), getStr(method, "source")) {
			if lt(getStr(method, "amount"), amount) {
				return "Error: not enough balance in payment method " + str(paymentID)
			}
		}
	}
	paid := func() value {
		var total value = int64(0)
		for _, p := range iterate(paymentMethods) {
			total = add(total, getStr(p, "amount"), false)
		}
		return total
	}
	if !pyval.Equal(paid(), totalPrice) {
		return "Error: payment amount does not add up, total price is " + str(totalPrice) + ", but paid " + str(paid())
	}

	// Every check passed: charge the payment methods.
	for _, pm := range iterate(paymentMethods) {
		paymentID := getStr(pm, "payment_id")
		amount := getStr(pm, "amount")
		method := getItem(getStr(user, "payment_methods"), paymentID)
		switch source := getStr(method, "source"); {
		case pyval.Equal(source, "gift_card"):
			setItem(method, "amount", sub(getStr(method, "amount"), amount, true))
		case pyval.Equal(source, "certificate"):
			delItem(getStr(user, "payment_methods"), paymentID)
		}
	}
	reservations.set(reservationID, reservation)
	appendTo(getStr(user, "reservations"), reservationID)
	return dumps(reservation)
}

// calculate is the reference's calculator: its character filter, then the
// expression's value as float, rounded to 2 places, as str (see package calc).
func calculate(_ *DB, a []value) value {
	expr := a[0]
	allowed := "0123456789+-*/(). "
	for _, ch := range iterate(expr) {
		if !contains(allowed, ch) {
			return "Error: invalid characters in expression"
		}
	}
	s, ok := expr.(string)
	if !ok {
		// eval() of a list or dict whose items passed the filter.
		return "Error: eval() arg 1 must be a string, bytes or code object"
	}
	return calc.Evaluate(s)
}

func cancelReservation(db *DB, a []value) value {
	reservationID := a[0]
	reservations := db.table("reservations")
	if !reservations.has(reservationID) {
		return "Error: reservation not found"
	}
	reservation := reservations.mut(reservationID)

	// Refund every payment.
	var refunds []value
	for _, payment := range iterate(getStr(reservation, "payment_history")) {
		refunds = append(refunds, dict(
			"payment_id", getStr(payment, "payment_id"),
			"amount", neg(getStr(payment, "amount")),
		))
	}
	extendWith(getStr(reservation, "payment_history"), refunds)
	setItem(reservation, "status", "cancelled")
	return dumps(reservation)
}

func getReservationDetails(db *DB, a []value) value {
	reservations := db.table("reservations")
	if reservations.has(a[0]) {
		return dumps(reservations.get(a[0]))
	}
	return "Error: user not found" // sic: the reference says "user"
}

func getUserDetails(db *DB, a []value) value {
	users := db.table("users")
	if users.has(a[0]) {
		return dumps(users.get(a[0]))
	}
	return "Error: user not found"
}

// airports are the airline's airports and their cities, in the reference's order.
var airports = [][2]string{
	{"SFO", "San Francisco"}, {"JFK", "New York"}, {"LAX", "Los Angeles"}, {"ORD", "Chicago"},
	{"DFW", "Dallas"}, {"DEN", "Denver"}, {"SEA", "Seattle"}, {"ATL", "Atlanta"}, {"MIA", "Miami"},
	{"BOS", "Boston"}, {"PHX", "Phoenix"}, {"IAH", "Houston"}, {"LAS", "Las Vegas"}, {"MCO", "Orlando"},
	{"EWR", "Newark"}, {"CLT", "Charlotte"}, {"MSP", "Minneapolis"}, {"DTW", "Detroit"},
	{"PHL", "Philadelphia"}, {"LGA", "LaGuardia"},
}

func listAllAirports(_ *DB, _ []value) value {
	d := pyval.NewDict(len(airports))
	for _, ap := range airports {
		d.Set(ap[0], ap[1])
	}
	return dumps(d)
}

func searchDirectFlight(db *DB, a []value) value {
	origin, destination, date := a[0], a[1], a[2]
	results := pyval.NewList()
	for _, flight := range db.table("flights").values() {
		if pyval.Equal(getStr(flight, "origin"), origin) && pyval.Equal(getStr(flight, "destination"), destination) {
			if contains(getStr(flight, "dates"), date) &&
				pyval.Equal(getStr(getItem(getStr(flight, "dates"), date), "status"), "available") {
				r := withoutDates(flight)
				update(r, getItem(getStr(flight, "dates"), date))
				results.Items = append(results.Items, r)
			}
		}
	}
	return dumps(results)
}

func searchOnestopFlight(db *DB, a []value) value {
	origin, destination, date := a[0], a[1], a[2]
	flights := db.table("flights").values()
	results := pyval.NewList()
	for _, f1 := range flights {
		if !pyval.Equal(getStr(f1, "origin"), origin) {
			continue
		}
		for _, f2 := range flights {
			if !(pyval.Equal(getStr(f2, "destination"), destination) &&
				pyval.Equal(getStr(f1, "destination"), getStr(f2, "origin"))) {
				continue
			}
			// A first leg arriving the next day makes the second leg's
			// date the next day of May.
			date2 := date
			if contains(getStr(f1, "scheduled_arrival_time_est"), "+1") {
				date2 = "2024-05-" + str(add(toInt(lastTwo(date)), int64(1), false))
			}
			if gt(getStr(f1, "scheduled_arrival_time_est"), getStr(f2, "scheduled_departure_time_est")) {
				continue
			}
			if contains(getStr(f1, "dates"), date) && contains(getStr(f2, "dates"), date2) {
				if pyval.Equal(getStr(getItem(getStr(f1, "dates"), date), "status"), "available") &&
					pyval.Equal(getStr(getItem(getStr(f2, "dates"), date2), "status"), "available") {
					r1 := withoutDates(f1)
					update(r1, getItem(getStr(f1, "dates"), date))
					r1.Set("date", date)
					r2 := withoutDates(f2)
					// sic: the reference merges the second leg's data of
					// the first leg's date (a KeyError if it has none).
					update(r2, getItem(getStr(f2, "dates"), date))
					r2.Set("date", date2)
					results.Items = append(results.Items, pyval.NewList(r1, r2))
				}
			}
		}
	}
	return dumps(results)
}

func sendCertificate(db *DB, a []value) value {
	userID, amount := a[0], a[1]
	users := db.table("users")
	if !users.has(userID) {
		return "Error: user not found"
	}
	user := users.mut(userID)
	// At most three certificates per task: the first free of three ids.
	for _, id := range []string{"3221322", "3221323", "3221324"} {
		paymentID := "certificate_" + id
		if !contains(getStr(user, "payment_methods"), paymentID) {
			setItem(getStr(user, "payment_methods"), paymentID, dict(
				"source", "certificate",
				"amount", amount,
				"id", paymentID,
			))
			return "Certificate " + paymentID + " added to user " + str(userID) + " with amount " + str(amount) + "."
		}
	}
	return nil // the reference falls off its loop and returns None
}

func think(_ *DB, _ []value) value { return "" }

func transferToHumanAgents(_ *DB, _ []value) value { return "Transfer successful" }

func updateReservationBaggages(db *DB, a []value) value {
	reservationID, totalBaggages, nonfreeBaggages, paymentID := a[0], a[1], a[2], a[3]
	users, reservations := db.table("users"), db.table("reservations")
	if !reservations.has(reservationID) {
		return "Error: reservation not found"
	}
	reservation := reservations.mut(reservationID)

	totalPrice := mul(int64(50), maxOf(int64(0), sub(nonfreeBaggages, getStr(reservation, "nonfree_baggages"), false)))
	userID := getStr(reservation, "user_id")
	if !contains(getStr(users.get(userID), "payment_methods"), paymentID) {
		return "Error: payment method not found"
	}
	method := getItem(getStr(users.mut(userID), "payment_methods"), paymentID)
	if pyval.Equal(getStr(method, "source"), "certificate") {
		return "Error: certificate cannot be used to update reservation"
	} else if pyval.Equal(getStr(method, "source"), "gift_card") && lt(getStr(method, "amount"), totalPrice) {
		return "Error: gift card balance is not enough"
	}

	setItem(reservation, "total_baggages", totalBaggages)
	setItem(reservation, "nonfree_baggages", nonfreeBaggages)
	if pyval.Equal(getStr(method, "source"), "gift_card") {
		setItem(method, "amount", sub(getStr(method, "amount"), totalPrice, true))
	}
	if !pyval.Equal(totalPrice, int64(0)) {
		appendTo(getStr(reservation, "payment_history"), dict(
			"payment_id", paymentID,
			"amount", totalPrice,
		))
	}
	return dumps(reservation)
}

func updateReservationFlights(db *DB, a []value) value {
	reservationID, cabin, flightsArg, paymentID := a[0], a[1], a[2], a[3]
	users, reservations, flightTable := db.table("users"), db.table("reservations"), db.table("flights")
	if !reservations.has(reservationID) {
		return "Error: reservation not found"
	}
	reservation := reservations.mut(reservationID)

	var totalPrice value = int64(0)
	flights := pyval.Clone(flightsArg)
	for _, flight := range iterate(flights) {
		// A flight the reservation already has (same number, date and
		// cabin) keeps its price.
		var same []value
		for _, f := range iterate(getStr(reservation, "flights")) {
			if pyval.Equal(getStr(f, "flight_number"), getStr(flight, "flight_number")) &&
				pyval.Equal(getStr(f, "date"), getStr(flight, "date")) &&
				pyval.Equal(cabin, getStr(reservation, "cabin")) {
				same = append(same, f)
			}
		}
		if len(same) > 0 {
			totalPrice = add(totalPrice, mul(getStr(same[0], "price"), int64(length(getStr(reservation, "passengers")))), true)
			setItem(flight, "price", getStr(same[0], "price"))
			setItem(flight, "origin", getStr(same[0], "origin"))
			setItem(flight, "destination", getStr(same[0], "destination"))
			continue
		}
		flightNumber := getStr(flight, "flight_number")
		if !flightTable.has(flightNumber) {
			return "Error: flight " + str(flightNumber) + " not found"
		}
		flightData := flightTable.get(flightNumber)
		if date := getStr(flight, "date"); !contains(getStr(flightData, "dates"), date) {
			return "Error: flight " + str(flightNumber) + " not found on date " + str(getStr(flight, "date"))
		}
		flightDateData := getItem(getStr(flightData, "dates"), getStr(flight, "date"))
		if !pyval.Equal(getStr(flightDateData, "status"), "available") {
			return "Error: flight " + str(flightNumber) + " not available on date " + str(getStr(flight, "date"))
		}
		if lt(getItem(getStr(flightDateData, "available_seats"), cabin), int64(length(getStr(reservation, "passengers")))) {
			return "Error: not enough seats on flight " + str(flightNumber)
		}
		setItem(flight, "price", getItem(getStr(flightDateData, "prices"), cabin))
		setItem(flight, "origin", getStr(flightData, "origin"))
		setItem(flight, "destination", getStr(flightData, "destination"))
		totalPrice = add(totalPrice, mul(getStr(flight, "price"), int64(length(getStr(reservation, "passengers")))), true)
	}

	var oldTotal value = int64(0)
	for _, f := range iterate(getStr(reservation, "flights")) {
		oldTotal = add(oldTotal, getStr(f, "price"), false)
	}
	totalPrice = sub(totalPrice, mul(oldTotal, int64(length(getStr(reservation, "passengers")))), true)

	userID := getStr(reservation, "user_id")
	if !contains(getStr(users.get(userID), "payment_methods"), paymentID) {
		return "Error: payment method not found"
	}
	method := getItem(getStr(users.mut(userID), "payment_methods"), paymentID)
	if pyval.Equal(getStr(method, "source"), "certificate") {
		return "Error: certificate cannot be used to update reservation"
	} else if pyval.Equal(getStr(method, "source"), "gift_card") && lt(getStr(method, "amount"), totalPrice) {
		return "Error: gift card balance is not enough"
	}

	if pyval.Equal(getStr(method, "source"), "gift_card") {
		setItem(method, "amount", sub(getStr(method, "amount"), totalPrice, true))
	}
	setItem(reservation, "flights", flights)
	if !pyval.Equal(totalPrice, int64(0)) {
		appendTo(getStr(reservation, "payment_history"), dict(
			"payment_id", paymentID,
			"amount", totalPrice,
		))
	}
	// The reference does not update the flights' seats here either.
	return dumps(reservation)
}

func updateReservationPassengers(db *DB, a []value) value {
	reservationID, passengers := a[0], a[1]
	reservations := db.table("reservations")
	if !reservations.has(reservationID) {
		return "Error: reservation not found"
	}
	reservation := reservations.mut(reservationID)
	if length(passengers) != length(getStr(reservation, "passengers")) {
		return "Error: number of passengers does not match"
	}
	setItem(reservation, "passengers", passengers)
	return dumps(reservation)
}
